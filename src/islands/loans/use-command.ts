import { useRef, useState } from 'react';
import { api, errorMessageOf } from '../lib/api.ts';

export type Failure = {
  status: number;
  message: string;
  error: unknown;
  field?: string;
  details?: Record<string, unknown>;
};

/**
 * One money form: its Idempotency-Key is made ONCE when the form is created (not per click), so a
 * double click or a retried request is applied once by the server (the replay answers the same).
 * A new key is made only after a success, for the next, distinct command.
 */
export function useCommand<T = unknown>() {
  const key = useRef<string>(crypto.randomUUID());
  const inFlight = useRef<Promise<T> | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  /** The last failure at once (the state above shows on the next render). */
  const lastFailure = useRef<Failure | null>(null);

  async function run(path: string, body: unknown): Promise<T | null> {
    // A second click while the first is on its way shares the first request: same key, one answer.
    if (inFlight.current) return inFlight.current;
    setBusy(true);
    setFailure(null);
    lastFailure.current = null;
    const request = api.post(path, { json: body, headers: { 'Idempotency-Key': key.current } }).json<T>();
    inFlight.current = request;
    try {
      const answer = await request;
      key.current = crypto.randomUUID();
      return answer;
    } catch (error) {
      const failed = { ...(await errorMessageOf(error)), error };
      // A refusal other than 409 is the server's final answer for this key (it replays it): the
      // corrected form is a new command with a new key. A 409 (in flight, or an overpayment to
      // confirm) is not stored, so the same key comes back.
      if (failed.status >= 400 && failed.status < 500 && failed.status !== 409) key.current = crypto.randomUUID();
      lastFailure.current = failed;
      setFailure(failed);
      return null;
    } finally {
      inFlight.current = null;
      setBusy(false);
    }
  }
  return { run, busy, failure, key, lastFailure, clear: () => setFailure(null) };
}
