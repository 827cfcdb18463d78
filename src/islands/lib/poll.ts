/**
 * Polls while `shouldContinue(last result)` holds and the tab is visible; a hidden tab waits and
 * polls again as soon as it is shown. Used by the downloads list (status and progress of files
 * being prepared). Returns a stop function. Global timers, so tests drive it with fake timers.
 */
type VisibilityDoc = {
  visibilityState: string;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
};

export function startPolling<T>(args: {
  intervalMs: number;
  doc: VisibilityDoc;
  load: () => Promise<T>;
  onResult: (value: T) => void;
  onError: (error: unknown) => void;
  shouldContinue: (value: T) => boolean;
}): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isStopped = false;
  let isWaitingForVisible = false;
  const schedule = () => {
    if (!isStopped) timer = setTimeout(tick, args.intervalMs);
  };
  const tick = async () => {
    if (isStopped) return;
    if (args.doc.visibilityState !== 'visible') {
      isWaitingForVisible = true;
      return;
    }
    try {
      const value = await args.load();
      if (isStopped) return;
      args.onResult(value);
      if (args.shouldContinue(value)) schedule();
      else stop();
    } catch (error) {
      // After a failure the list shows the error alert with Retry; no silent retry loop.
      if (!isStopped) args.onError(error);
      stop();
    }
  };
  const onVisibility = () => {
    if (isWaitingForVisible && args.doc.visibilityState === 'visible') {
      isWaitingForVisible = false;
      void tick();
    }
  };
  const stop = () => {
    isStopped = true;
    if (timer !== undefined) clearTimeout(timer);
    args.doc.removeEventListener('visibilitychange', onVisibility);
  };
  args.doc.addEventListener('visibilitychange', onVisibility);
  schedule();
  return stop;
}
