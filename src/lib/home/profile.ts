import { z } from 'zod';
import { recordAudit } from '../audit/record-audit.ts';
import type { Db, Tx } from '../db/index.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { AppError } from '../errors/app-error.ts';
import type { UsersRow } from '../db/schema.generated.ts';
import { SIGNED_IN } from '../auth/permissions.ts';

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
  return db.tenant(args.tenantId, (tx) =>
    saveOwnProfile(
      tx,
      { tenantId: args.tenantId, userId: args.userId, ip: args.ip, requestId: args.requestId },
      update,
    ),
  );
}

async function saveOwnProfile(
  tx: Tx,
  actor: Pick<Actor, 'tenantId' | 'userId' | 'ip' | 'requestId'>,
  update: ProfileUpdate,
): Promise<ProfileUpdate> {
  const [before] = await tx.query<Pick<UsersRow, 'display_name' | 'language'>>(
    'select display_name, language from users where id = $1 and is_active for update',
    [actor.userId],
  );
  if (!before) throw new AppError('NOT_FOUND', 'Your account is no longer active.');
  await tx.query('update users set display_name = $2, language = $3, updated_at = now() where id = $1', [
    actor.userId,
    update.display_name,
    update.language,
  ]);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'user.update_profile',
    objectType: 'user',
    objectId: actor.userId,
    before,
    after: update,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return update;
}

/** The same write as a command (src/lib/http/command.ts): the profile page's form posts it; any signed-in user, on their own row only. */
export const updateOwnProfileCommand = defineCommand({
  action: 'user.update_profile',
  objectType: 'user',
  permission: SIGNED_IN,
  input: profileUpdateSchema,
  run: (tx, actor, input) => saveOwnProfile(tx, actor, input),
});
