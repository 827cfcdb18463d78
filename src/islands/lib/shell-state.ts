import { jsonForScript } from '#lib/http/html-safety.ts';
import type { PricingFeature } from '../stores/plan.ts';
import type { CurrentUser } from '../stores/user.ts';

/** What the signed-in layout writes into the page for the shell keeper (AppLayout.astro). */
export type ShellState = { idleSeconds: number; user: CurrentUser; plan: PricingFeature[] };

/** The id of the `<script type="application/json">` element holding the ShellState. */
export const SHELL_STATE_ID = 'shell-state';

/**
 * JSON for the `<script type="application/json">` element: escaped so no value can close the element
 * or open a comment, whatever text a user name or a plan holds.
 */
export function shellStateJson(state: ShellState): string {
  return jsonForScript(state);
}
