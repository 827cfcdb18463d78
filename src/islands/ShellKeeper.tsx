import { useEffect } from 'react';
import { installGlobalErrorReporting } from './lib/error-report.ts';
import { signOutForIdle, startIdleTimer } from './lib/idle.ts';
import { signOut } from './lib/session.ts';
import { seedUser, type CurrentUser } from './stores/user.ts';

/**
 * Rendered once by the signed-in layouts, invisible. It seeds the shared $user store from the
 * server-rendered user (no fetch on load), reports uncaught errors and unhandled rejections (§8),
 * and signs the browser out after `idleSeconds` without activity (§9). Deliberately no Chakra: it is
 * on every page, including pages that only show data, so it must stay a few kilobytes.
 */
export default function ShellKeeper({ idleSeconds, user }: { idleSeconds: number; user: CurrentUser }) {
  useEffect(() => {
    seedUser(user);
    installGlobalErrorReporting('shell');
    return startIdleTimer({
      seconds: idleSeconds,
      target: window,
      onIdle: () => void signOutForIdle({ signOut, location: window.location, navigate: (url) => window.location.assign(url) }),
    });
  }, [idleSeconds, user]);
  return null;
}
