import { afterEach, describe, expect, it, vi } from 'vitest';
import { readTheme } from './theme';

// A computed style holding only the variables given (with the whitespace CSS
// leaves around custom property values).
function styleWith(vars: Record<string, string>) {
  vi.stubGlobal('getComputedStyle', () => ({ getPropertyValue: (n: string) => (n in vars ? ` ${vars[n]} ` : '') }));
}

describe('readTheme', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('reads each colour from its variable, trimmed', () => {
    styleWith({ '--canvas-bg': '#101010', '--status-failed': 'rgb(250, 82, 82)', '--phase-start-delay': '#abc', '--heat-3': 'red', '--lane-commit': '#ae3ec9' });
    const th = readTheme({} as Element);
    expect(th.bg).toBe('#101010');
    expect(th.failed).toBe('rgb(250, 82, 82)');
    expect(th.phase.start_delay).toBe('#abc');
    expect(th.heat[3]).toBe('red');
    expect(th.laneCommit).toBe('#ae3ec9');
  });

  it('falls back where a variable is unset', () => {
    styleWith({});
    const th = readTheme({} as Element);
    expect(th.text).toBe('#222');
    expect(th.completed).toBe('#2f9e44');
    expect(th.phase.pending).toBe('#888');
    expect(th.heat).toEqual(['#f1f3f5', '#ffe066', '#ff922b', '#e03131', '#862e9c']);
    expect(Object.keys(th.phase).sort()).toEqual(['ack', 'alignment', 'async', 'finalize', 'pending', 'start_delay', 'sync']);
  });
});
