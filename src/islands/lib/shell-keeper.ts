import { api } from './api.ts';
import { installGlobalErrorReporting } from './error-report.ts';
import { signOutForIdle, startIdleTimer } from './idle.ts';
import { signOut } from './session.ts';
import { wireNavToggle } from './nav-toggle.ts';
import { seedPlan, startPlanRefresh, type PricingFeature } from '../stores/plan.ts';
import { seedUser } from '../stores/user.ts';
import { SHELL_STATE_ID, type ShellState } from './shell-state.ts';

/**
 * Runs once per signed-in page, as a plain module script rather than a React island: it is on
 * every page, including pages that only show data, which then load no framework at all. It seeds
 * the shared $user and $plan stores from the server-rendered state (no fetch on load), keeps the
 * plan fresh while the tab is visible, reports uncaught errors and unhandled rejections,
 * and signs the browser out after `idleSeconds` without activity. Returns false when the page
 * carries no state (signed out).
 */
export function startShellKeeper(doc: Document = document): boolean {
  wireSignOut(doc);
  wireNavToggle(doc);
  // A mark that the shell's module script ran (the CSP let it): the browser tests check it on every page kind.
  doc.documentElement.dataset.shell = 'ready';
  const element = doc.getElementById(SHELL_STATE_ID);
  if (!element?.textContent) return false;
  const { idleSeconds, user, plan } = JSON.parse(element.textContent) as ShellState;
  seedUser(user);
  seedPlan(plan);
  installGlobalErrorReporting('shell');
  startPlanRefresh({
    // x-background: a timer, not the user; it must not keep an idle session alive.
    fetchPlan: () => api.get('pricing-plans/current', { headers: { 'x-background': '1' } }).json<PricingFeature[]>(),
    doc,
    refreshNow: false,
  });
  startIdleTimer({
    seconds: idleSeconds,
    target: window,
    onIdle: () =>
      void signOutForIdle({ signOut, location: window.location, navigate: (url) => window.location.assign(url) }),
  });
  return true;
}

/**
 * The header's sign-out buttons (`data-sign-out`): end the session, then leave for where the server
 * says (the identity provider's logout after single sign-on, else the login page). A failed sign-out
 * is only logged; the browser still leaves.
 */
export function wireSignOut(doc: Document = document): void {
  for (const button of doc.querySelectorAll<HTMLButtonElement>('button[data-sign-out]')) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      let next = '/user/login';
      try {
        next = await signOut();
      } catch (error) {
        console.warn('sign-out failed', error);
      }
      window.location.assign(next);
    });
  }
}
