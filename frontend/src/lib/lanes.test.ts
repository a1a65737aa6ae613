import { describe, expect, it } from 'vitest';
import type { TimelineBar } from './api';
import {
  brushRange,
  extraLaneCount,
  extraLanesHeight,
  FAILURE_LANE_HEIGHT,
  failureTicks,
  LANE_GAP,
  LANE_HEIGHT,
  laneHit,
  lanePoints,
  timelineLayout,
  visibleMax,
} from './timeline';

const range = { from: 1000, to: 2000 };

describe('timelineLayout', () => {
  it('gives the bars what the lanes and the axis leave', () => {
    const l = timelineLayout(800, 320, true, 20, 38);
    const lanes = 3 * LANE_GAP + 2 * LANE_HEIGHT + FAILURE_LANE_HEIGHT;
    expect(l.bars).toEqual({ top: 20, height: 320 - 20 - 38 - 4 - lanes, width: 800 });
    const barsEnd = l.bars.top + l.bars.height;
    expect(l.lanes!.backpressure).toEqual({ top: barsEnd + LANE_GAP, height: LANE_HEIGHT });
    expect(l.lanes!.size.top).toBe(l.lanes!.backpressure.top + LANE_HEIGHT + LANE_GAP);
    expect(l.lanes!.failures).toEqual({ top: l.lanes!.size.top + LANE_HEIGHT + LANE_GAP, height: FAILURE_LANE_HEIGHT });
    expect(l.axisY).toBe(l.lanes!.failures.top + FAILURE_LANE_HEIGHT);
    expect(l.axisY).toBe(320 - 38 - 4);
  });

  it('has no commit or custom lanes by default', () => {
    const l = timelineLayout(800, 320, true, 20, 38);
    expect(l.lanes!.commit).toBeNull();
    expect(l.lanes!.custom).toEqual([]);
  });

  it('puts 1 commit and 2 custom lanes under the size lane, failures last; the bars keep their height', () => {
    // Worked by hand. Base: lanes 3×6 + 2×34 + 14 = 100; bars 320 − 20 − 38 − 4 − 100 = 158.
    // Three more lanes of 6 + 34 = 40 each: 120, so a canvas of 440 leaves the bars 158.
    expect(extraLaneCount({ commit: true, custom: 2 })).toBe(3);
    expect(extraLanesHeight({ commit: true, custom: 2 })).toBe(120);
    const l = timelineLayout(800, 440, true, 20, 38, { commit: true, custom: 2 });
    expect(l.bars).toEqual({ top: 20, height: 158, width: 800 });
    expect(l.lanes).toEqual({
      backpressure: { top: 184, height: 34 }, // 20 + 158 + 6
      size: { top: 224, height: 34 }, // 184 + 34 + 6
      commit: { top: 264, height: 34 },
      custom: [
        { top: 304, height: 34 },
        { top: 344, height: 34 },
      ],
      failures: { top: 384, height: 14 },
    });
    expect(l.axisY).toBe(398); // 384 + 14 = 440 − 38 − 4
  });

  it('takes custom lanes without a commit lane', () => {
    const l = timelineLayout(800, 360, true, 20, 38, { commit: false, custom: 1 });
    expect(l.bars.height).toBe(158);
    expect(l.lanes!.commit).toBeNull();
    expect(l.lanes!.custom).toEqual([{ top: 264, height: 34 }]);
    expect(l.lanes!.failures).toEqual({ top: 304, height: 14 });
    expect(l.axisY).toBe(318);
  });

  it('without lanes puts the axis under the bars', () => {
    const l = timelineLayout(800, 220, false, 20, 38);
    expect(l.lanes).toBeNull();
    expect(l.axisY).toBe(l.bars.top + l.bars.height);
  });
});

describe('lanePoints', () => {
  const band = { top: 100, height: 40 };
  const pts = [
    { t_ms: 500, value: 0.2 },
    { t_ms: 900, value: 0.5 },
    { t_ms: 1500, value: 1 },
    { t_ms: 2100, value: 0 },
    { t_ms: 3000, value: 0.7 },
  ];

  it('places values on 0..max within the band and keeps one point beyond each edge', () => {
    const px = lanePoints(pts, range, 1000, band, 1);
    expect(px.map((p) => [p.point.t_ms, p.x, p.y])).toEqual([
      [900, -100, 120],
      [1500, 500, 100],
      [2100, 1100, 140],
    ]);
  });

  it('puts everything on the floor when the lane is empty in view', () => {
    expect(lanePoints([{ t_ms: 1500, value: 5 }], range, 1000, band, 0)[0].y).toBe(140);
  });

  it('finds the point nearest the pointer within the slop', () => {
    const px = lanePoints(pts, range, 1000, band, 1);
    expect(laneHit(px, 505)?.point.t_ms).toBe(1500);
    expect(laneHit(px, 520)).toBeUndefined();
    expect(laneHit(px, 520, 25)?.point.t_ms).toBe(1500);
  });

  it('scales the size lane to the largest value in view', () => {
    expect(visibleMax([{ t_ms: 900, value: 99 }, { t_ms: 1200, value: 5 }, { t_ms: 1800, value: 7 }], range)).toBe(7);
  });
});

function bar(id: number, start: number, status: TimelineBar['status'], dur = 50): TimelineBar {
  return { start_ms: start, end_ms: start + dur, status, max_duration_ms: dur, count: 1, first_id: id, last_id: id, pipeline: 0 };
}

describe('failureTicks', () => {
  it('marks only failed (or merged-with-failed) bars in view', () => {
    const ticks = failureTicks([bar(1, 1100, 'COMPLETED'), bar(2, 1200, 'FAILED', 300), bar(3, 2500, 'FAILED')], range, 1000);
    expect(ticks).toEqual([{ x: 200, w: 300, bar: bar(2, 1200, 'FAILED', 300) }]);
  });
});

describe('brushRange', () => {
  it('turns a drag in either direction into a range', () => {
    expect(brushRange(100, 300, range, 1000)).toEqual({ from: 1100, to: 1300 });
    expect(brushRange(300, 100, range, 1000)).toEqual({ from: 1100, to: 1300 });
  });

  it('clamps to the canvas and ignores a click-sized brush', () => {
    expect(brushRange(-50, 200, range, 1000)).toEqual({ from: 1000, to: 1200 });
    expect(brushRange(100, 102, range, 1000)).toBeNull();
  });
});
