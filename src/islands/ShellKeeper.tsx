import { useEffect } from 'react';
import { api } from './lib/api.ts';
import { installGlobalErrorReporting } from './lib/error-report.ts';
import { signOutForIdle, startIdleTimer } from './lib/idle.ts';
import { signOut } from './lib/session.ts';
import { seedPlan, startPlanRefresh, type PricingFeature } from './stores/plan.ts';
import { seedUser, type CurrentUser } from './stores/user.ts';

/**
 * Rendered once by the signed-in layouts, invisible. It seeds the shared $user and $plan stores from
 * server-rendered data (no fetch on load), keeps the plan fresh while the tab is visible (§4),
 * reports uncaught errors and unhandled rejections (§8), and signs the browser out after
 * `idleSeconds` without activity (§9). Deliberately no Chakra: it is on every page, including pages
 * that only show data, so it must stay a few kilobytes.
 */
export default function ShellKeeper({ idleSeconds, user, plan }: { idleSeconds: number; user: CurrentUser; plan: PricingFeature[] }) {
  useEffect(() => {
    seedUser(user);
    seedPlan(plan);
    installGlobalErrorReporting('shell');
    const stopPlan = startPlanRefresh({
      // x-background: a timer, not the user; it must not keep an idle session alive.
      fetchPlan: () => api.get('pricing-plans/current', { headers: { 'x-background': '1' } }).json<PricingFeature[]>(),
      doc: document,
      refreshNow: false,
    });
    const stopIdle = startIdleTimer({
      seconds: idleSeconds,
      target: window,
      onIdle: () => void signOutForIdle({ signOut, location: window.location, navigate: (url) => window.location.assign(url) }),
    });
    return () => {
      stopPlan();
      stopIdle();
    };
  }, [idleSeconds, user, plan]);
  return null;
}
