import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { decideApplication } from './decide-application.ts';

/** Rejects a submitted loan application (see decideApplication for the rules and the loan's new state). */
export function rejectApplication(tx: Tx, actor: Actor, applicationId: string, note?: string | null) {
  return decideApplication(tx, actor, applicationId, 'reject', note);
}
