import { map } from 'nanostores';
import { isFeatureEnabled, isUsageLimitReached, type PricingFeature } from '#lib/auth/permissions.ts';

export type { PricingFeature };

export type PlanState = {
  features: PricingFeature[];
  isLoading: boolean;
  error: string | null;
  loadedAt: number | null;
};

/** Plan features from GET /v1/pricing-plans/current. */
export const $plan = map<PlanState>({ features: [], isLoading: false, error: null, loadedAt: null });

export const PLAN_REFRESH_MS = 5 * 60 * 1000;

export function seedPlan(features: PricingFeature[], now = Date.now()): void {
  $plan.set({ features, isLoading: false, error: null, loadedAt: now });
}

export async function refreshPlan(fetchPlan: () => Promise<PricingFeature[]>): Promise<void> {
  $plan.setKey('isLoading', true);
  try {
    seedPlan(await fetchPlan());
  } catch (error) {
    // Keep the last known features: a flaky network must not switch features off mid-work.
    $plan.set({ ...$plan.get(), isLoading: false, error: error instanceof Error ? error.message : 'Unknown error' });
  }
}

type VisibilityDoc = {
  visibilityState: string;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
};

/**
 * Refreshes when the tab becomes visible and every 5 minutes while it stays visible; nothing runs
 * while hidden. `refreshNow` false skips the first fetch when the page was seeded by the server.
 */
export function startPlanRefresh(args: {
  fetchPlan: () => Promise<PricingFeature[]>;
  doc: VisibilityDoc;
  refreshNow?: boolean;
}): () => void {
  let interval: ReturnType<typeof setInterval> | undefined;
  const tick = () => void refreshPlan(args.fetchPlan);
  const startInterval = () => {
    if (interval === undefined) interval = setInterval(tick, PLAN_REFRESH_MS);
  };
  const stopInterval = () => {
    if (interval !== undefined) clearInterval(interval);
    interval = undefined;
  };
  const onVisibility = () => {
    if (args.doc.visibilityState === 'visible') {
      tick();
      startInterval();
    } else {
      stopInterval();
    }
  };
  args.doc.addEventListener('visibilitychange', onVisibility);
  if (args.doc.visibilityState === 'visible') {
    if (args.refreshNow ?? true) tick();
    startInterval();
  }
  return () => {
    stopInterval();
    args.doc.removeEventListener('visibilitychange', onVisibility);
  };
}

export function isEnabled(name: string): boolean {
  return isFeatureEnabled($plan.get().features, name);
}

export function isLimitReached(name: string, usage?: number): boolean {
  return isUsageLimitReached($plan.get().features, name, usage);
}
