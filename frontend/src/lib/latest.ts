import { errorText } from './api';

/** Where one load reports to: whether it runs, its answer, or its failure's text. */
export interface LoadHandlers<T> {
  loading?: (on: boolean) => void;
  done: (value: T) => void;
  failed: (message: string) => void;
}

/**
 * latestLoad returns a loader for loads that may overlap (a newer range, job or checkpoint asked
 * for before the last answer came): only the latest call's answer or failure is reported, and
 * loading ends when the latest call settles.
 */
export function latestLoad() {
  let seq = 0;
  return async function load<T>(fetch: () => Promise<T>, h: LoadHandlers<T>): Promise<void> {
    const my = ++seq;
    h.loading?.(true);
    try {
      const v = await fetch();
      if (my === seq) h.done(v);
    } catch (e) {
      if (my === seq) h.failed(errorText(e));
    } finally {
      if (my === seq) h.loading?.(false);
    }
  };
}
