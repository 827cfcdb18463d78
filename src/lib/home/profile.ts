import { z } from 'zod';
import { recordAudit } from '../audit/record-audit.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';

/** The locales a user may choose (language: only the part before the dash picks the UI language). */
export const PROFILE_LANGUAGES = ['en-US', 'fr-FR'] as const;

export const profileUpdateSchema = z.object({
  display_name: z.string().trim().min(1, 'a name is required').max(120),
  language: z.enum(PROFILE_LANGUAGES),
});

export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

/**
 * A user edits their own name and language. Only those two columns: a form posting extra fields
 * (tenant, roles, email) cannot change anything else. The session re-reads the user on every request,
 * so the new language applies on the next page. One audit row with before and after.
 */
export async function updateOwnProfile(
  db: Db,
  args: { tenantId: string; userId: string; input: unknown; ip?: string | null; requestId?: string | null },
): Promise<ProfileUpdate> {
  const update = profileUpdateSchema.parse(args.input);
  return db.tenant(args.tenantId, async (tx) => {
    const [before] = await tx.query<{ display_name: string; language: string }>('select display_name, language from users where id = $1 and is_active for update', [args.userId]);
    if (!before) throw new AppError('NOT_FOUND', 'Your account is no longer active.');
    await tx.query('update users set display_name = $2, language = $3, updated_at = now() where id = $1', [args.userId, update.display_name, update.language]);
    await recordAudit(tx, {
      tenantId: args.tenantId, actorId: args.userId, action: 'user.update_profile', objectType: 'user', objectId: args.userId,
      before, after: update, ip: args.ip, requestId: args.requestId, outcome: 'success',
    });
    return update;
  });
}
