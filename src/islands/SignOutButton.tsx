import { useState } from 'react';
import { signOut } from './lib/session.ts';

/** Sign out from the header. A failed sign-out is only logged (spec §8); the browser still leaves. */
export default function SignOutButton({ label }: { label: string }) {
  const [isBusy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="shell-link-button"
      disabled={isBusy}
      onClick={async () => {
        setBusy(true);
        let next = '/user/login';
        try {
          next = await signOut();
        } catch (error) {
          console.warn('sign-out failed', error);
        }
        window.location.assign(next);
      }}
    >
      {label}
    </button>
  );
}
