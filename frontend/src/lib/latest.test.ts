import { describe, expect, it } from 'vitest';
import { latestLoad } from './latest';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('latestLoad', () => {
  it('reports only the latest call and ends loading when it settles', async () => {
    const load = latestLoad();
    const log: string[] = [];
    const h = {
      loading: (on: boolean) => log.push(on ? 'loading' : 'idle'),
      done: (v: string) => log.push('done ' + v),
      failed: (m: string) => log.push('failed ' + m),
    };
    const first = deferred<string>();
    const second = deferred<string>();
    const a = load(() => first.promise, h);
    const b = load(() => second.promise, h);
    second.resolve('b');
    await b;
    first.resolve('a');
    await a;
    expect(log).toEqual(['loading', 'loading', 'done b', 'idle']);
  });

  it('reports the failure text of the latest call and drops an older one', async () => {
    const load = latestLoad();
    const log: string[] = [];
    const h = { done: (v: number) => log.push('done ' + v), failed: (m: string) => log.push('failed ' + m) };
    const old = deferred<number>();
    const a = load(() => old.promise, h);
    await load(() => Promise.reject(new Error('boom')), h);
    old.reject(new Error('late'));
    await a;
    expect(log).toEqual(['failed boom']);
  });
});
