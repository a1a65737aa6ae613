/** oneTimer holds one pending call at a time: start replaces it, cancel drops it. */
function oneTimer() {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return {
    pending: () => timer !== undefined,
    start(fn: () => void, waitMs: number) {
      cancel();
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, waitMs);
    },
    cancel,
  };
}

/** debounce delays fn until calls stop for waitMs; cancel drops a pending call. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, waitMs: number) {
  const timer = oneTimer();
  const d = (...args: A) => timer.start(() => fn(...args), waitMs);
  d.cancel = timer.cancel;
  d.flush = (...args: A) => {
    timer.cancel();
    fn(...args);
  };
  return d;
}

/**
 * throttle runs fn at most once per waitMs: the first call schedules it waitMs later, calls
 * until then join that run (with the last arguments). Unlike debounce, a steady stream of
 * calls still runs it every waitMs.
 */
export function throttle<A extends unknown[]>(fn: (...args: A) => void, waitMs: number) {
  const timer = oneTimer();
  let last: A;
  const th = (...args: A) => {
    last = args;
    if (!timer.pending()) timer.start(() => fn(...last), waitMs);
  };
  th.cancel = timer.cancel;
  return th;
}
