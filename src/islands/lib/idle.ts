/**
 * Idle auto-logout. The timeout is, for administrators, their own session_timeout;
 * for everyone else the tenant's auto_logout.timeout; 60 seconds when unset. Activity is any of the
 * six events below. On timeout the browser signs out and goes to login remembering where it was.
 * The server enforces the same idle limit on its session record; this only makes it visible.
 */
export const ACTIVITY_EVENTS = ['mousemove', 'mousedown', 'resize', 'keydown', 'touchstart', 'wheel'] as const;
export const DEFAULT_IDLE_SECONDS = 60;

function positive(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

export function idleTimeoutSeconds(args: {
  isAdmin: boolean;
  sessionTimeout?: number | null;
  tenantConfig?: Record<string, unknown> | null;
}): number {
  if (args.isAdmin) return positive(args.sessionTimeout) ?? DEFAULT_IDLE_SECONDS;
  const autoLogout = args.tenantConfig?.auto_logout as { timeout?: unknown } | undefined;
  return positive(autoLogout?.timeout) ?? DEFAULT_IDLE_SECONDS;
}

/** /user/login?redirect=<path+query+hash>, the origin the login page sends the user back to. */
export function loginUrlFor(location: { pathname: string; search: string; hash: string }): string {
  return `/user/login?redirect=${encodeURIComponent(`${location.pathname}${location.search}${location.hash}`)}`;
}

type EventTargetLike = {
  addEventListener(type: string, listener: () => void, options?: AddEventListenerOptions): void;
  removeEventListener(type: string, listener: () => void): void;
};

/**
 * Calls onIdle once after `seconds` without activity. Activity restarts the countdown. Returns a
 * stop function. Uses the global timers so tests drive it with fake timers.
 */
export function startIdleTimer(args: { seconds: number; target: EventTargetLike; onIdle: () => void }): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isStopped = false;
  const arm = () => {
    if (isStopped) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      stop();
      args.onIdle();
    }, args.seconds * 1000);
  };
  const stop = () => {
    isStopped = true;
    if (timer !== undefined) clearTimeout(timer);
    for (const type of ACTIVITY_EVENTS) args.target.removeEventListener(type, arm);
  };
  for (const type of ACTIVITY_EVENTS) args.target.addEventListener(type, arm, { passive: true });
  arm();
  return stop;
}

/**
 * What happens on timeout: sign out on the server (a failure is only logged), then go to
 * login with the origin. The server would refuse the idle session anyway.
 */
export async function signOutForIdle(deps: {
  signOut: () => Promise<unknown>;
  location: { pathname: string; search: string; hash: string };
  navigate: (url: string) => void;
  log?: (message: string, error: unknown) => void;
}): Promise<void> {
  try {
    await deps.signOut();
  } catch (error) {
    (deps.log ?? console.warn)('sign-out after inactivity failed', error);
  }
  deps.navigate(loginUrlFor(deps.location));
}
