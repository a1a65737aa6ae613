import { describe, expect, it } from 'vitest';
import type { TimelineBar } from './api';
import { barEnd, barEndedUnseen, barRunning, hitGap, hitTest, layoutBars, layoutGaps, MIN_BAR_H, MIN_BAR_W, visibleMaxDuration } from './timeline';

function bar(id: number, start: number, dur: number, status: TimelineBar['status'] = 'COMPLETED', count = 1): TimelineBar {
  return {
    start_ms: start,
    end_ms: status === 'IN_PROGRESS' ? 0 : start + dur,
    status,
    max_duration_ms: dur,
    count,
    first_id: id,
    last_id: id + count - 1,
    pipeline: 0,
  };
}

// The bundled sample's seven checkpoints (trigger, duration).
const sample: TimelineBar[] = [
  bar(3, 1779924591497, 47),
  bar(13, 1779924602055, 42),
  bar(21, 1779924610968, 40),
  bar(27, 1779924617278, 53),
  bar(28, 1779924618333, 19022),
  bar(39, 1779924667438, 54),
  bar(52, 1779924682497, 26),
];
const range = { from: 1779924590000, to: 1779924690000 };
const plot = { top: 20, height: 100, width: 1000 };
const now = 1779924700000;

describe('layoutBars', () => {
  const rects = layoutBars(sample, range, plot, now);

  it('places every bar in view, from trigger to end', () => {
    expect(rects.length).toBe(7);
    const r28 = rects.find((r) => r.bar.first_id === 28)!;
    expect(r28.x).toBeCloseTo(((1779924618333 - range.from) / 100_000) * 1000, 6);
    expect(r28.w).toBeCloseTo(190.22, 6);
  });

  it('scales height by duration relative to the longest in view', () => {
    const r28 = rects.find((r) => r.bar.first_id === 28)!;
    expect(r28.h).toBe(100);
    expect(r28.y).toBe(20);
    for (const r of rects) {
      expect(r.y + r.h).toBe(120); // all grow up from the baseline
      expect(r.w).toBeGreaterThanOrEqual(MIN_BAR_W);
      expect(r.h).toBeGreaterThanOrEqual(MIN_BAR_H);
    }
  });

  it('rescales to the longest bar still in view after zooming', () => {
    // Zoomed on the first four: 53 ms is now full height.
    const zoomed = layoutBars(sample, { from: 1779924591000, to: 1779924618000 }, plot, now);
    expect(zoomed.map((r) => r.bar.first_id)).toEqual([3, 13, 21, 27]);
    expect(zoomed.find((r) => r.bar.first_id === 27)!.h).toBe(100);
    expect(zoomed.find((r) => r.bar.first_id === 21)!.h).toBeCloseTo((40 / 53) * 100, 6);
  });

  it('keeps a bar that started before the view but ends inside it', () => {
    const rs = layoutBars(sample, { from: 1779924630000, to: 1779924640000 }, plot, now);
    expect(rs.map((r) => r.bar.first_id)).toEqual([28]);
    expect(rs[0].x).toBeLessThan(0);
  });

  it('draws a running checkpoint up to now', () => {
    const running = bar(60, now - 5000, 0, 'IN_PROGRESS');
    expect(barEnd(running, now)).toBe(now);
    const rs = layoutBars([running], { from: now - 10_000, to: now + 10_000 }, plot, now);
    expect(rs[0].w).toBeCloseTo(250, 6);
    expect(rs[0].h).toBe(100); // the only bar; duration 0 → full relative height, no division by zero
  });

  it('tells a bar whose checkpoints ended unseen from a running one', () => {
    // Three checkpoints stored in progress merged in one bar: two ended unseen, one still runs.
    const mixed = { ...bar(70, now - 5000, 0, 'IN_PROGRESS', 3), ended_unseen: 2 };
    expect([barRunning(mixed), barEndedUnseen(mixed)]).toEqual([true, false]);
    expect(barEnd(mixed, now)).toBe(now);
    // All three ended unseen: not running, and it stops at its own end (its last ack), not now.
    const ended = { ...mixed, ended_unseen: 3, end_ms: now - 4000 };
    expect([barRunning(ended), barEndedUnseen(ended)]).toEqual([false, true]);
    expect(barEnd(ended, now)).toBe(now - 4000);
    // Without an end of its own it lasts its longest duration, like a final bar.
    expect(barEnd({ ...ended, end_ms: 0, max_duration_ms: 300 }, now)).toBe(now - 5000 + 300);
    // A completed bar is neither, whatever the count says.
    const done = { ...bar(80, now - 9000, 40), ended_unseen: 1 };
    expect([barRunning(done), barEndedUnseen(done)]).toEqual([false, false]);
  });
});

describe('visibleMaxDuration', () => {
  it('ignores bars outside the range', () => {
    expect(visibleMaxDuration(sample, range, now)).toBe(19022);
    expect(visibleMaxDuration(sample, { from: 1779924660000, to: 1779924690000 }, now)).toBe(54);
    expect(visibleMaxDuration(sample, { from: 0, to: 1 }, now)).toBe(0);
  });
});

describe('hitTest', () => {
  const rects = layoutBars(sample, range, plot, now);

  it('finds a short bar anywhere in its column', () => {
    const r3 = rects.find((r) => r.bar.first_id === 3)!;
    expect(hitTest(rects, r3.x + 1, plot.top + 5, plot)?.bar.first_id).toBe(3);
  });

  it('allows a few pixels of slop and picks the nearest bar', () => {
    const r27 = rects.find((r) => r.bar.first_id === 27)!;
    expect(hitTest(rects, r27.x - 2, 100, plot)?.bar.first_id).toBe(27);
    expect(hitTest(rects, r27.x - 20, 100, plot)).toBeUndefined();
  });

  it('misses above and below the plot', () => {
    const r28 = rects.find((r) => r.bar.first_id === 28)!;
    expect(hitTest(rects, r28.x + 10, 0, plot)).toBeUndefined();
    expect(hitTest(rects, r28.x + 10, 200, plot)).toBeUndefined();
    expect(hitTest(rects, r28.x + 10, 60, plot)?.bar.first_id).toBe(28);
  });

  it('prefers the failed bar when two overlap', () => {
    const overlapping = layoutBars([bar(1, 1000, 100), bar(2, 1000, 50, 'FAILED')], { from: 900, to: 1200 }, plot, now);
    expect(hitTest(overlapping, overlapping[0].x + 1, 100, plot)?.bar.status).toBe('FAILED');
  });
});

describe('layoutGaps / hitGap', () => {
  const gaps = [{ from_id: 4, to_id: 12, pipeline: 0, after_ms: 1779924591544, before_ms: 1779924602055 }];

  it('spans the gap from the checkpoint before to the one after', () => {
    const gs = layoutGaps(gaps, range, 1000);
    expect(gs.length).toBe(1);
    expect(gs[0].x).toBeCloseTo(15.44, 2);
    expect(gs[0].w).toBeCloseTo(105.11, 2);
    expect(hitGap(gs, 50)?.gap.from_id).toBe(4);
    expect(hitGap(gs, 200)).toBeUndefined();
  });

  it('drops gaps outside the view', () => {
    expect(layoutGaps(gaps, { from: 1779924650000, to: 1779924690000 }, 1000)).toEqual([]);
  });
});
