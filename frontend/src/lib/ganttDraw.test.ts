import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GanttRow } from './gantt';
import { AXIS_H, LABEL_W, paintGantt, type GanttDrawInput } from './ganttDraw';
import type { Theme } from './theme';

// A 2D context that records what is filled where (and in which style).
function recorder() {
  const fills: { style: unknown; x: number; y: number; w: number; h: number }[] = [];
  const texts: { text: string; x: number; y: number; style: unknown }[] = [];
  const ctx = {
    fillStyle: '' as unknown,
    strokeStyle: '' as unknown,
    lineWidth: 1,
    font: '',
    textBaseline: '',
    canvas: {},
    clearRect() {},
    fillRect(x: number, y: number, w: number, h: number) {
      fills.push({ style: this.fillStyle, x, y, w, h });
    },
    strokeRect() {},
    beginPath() {},
    moveTo() {},
    lineTo() {},
    stroke() {},
    fill() {},
    rect() {},
    setLineDash() {},
    measureText: (s: string) => ({ width: s.length * 6 }),
    fillText(text: string, x: number, y: number) {
      texts.push({ text, x, y, style: this.fillStyle });
    },
    createPattern: () => 'hatch',
  };
  return { ctx: ctx as unknown as CanvasRenderingContext2D, fills, texts };
}

const theme = {
  bg: 'bg', text: 'text', muted: 'muted', axis: 'axis', grid: 'grid', panel2: 'panel2', hover: 'hover', critical: 'critical',
  warn: 'warn', failed: 'failed', font: 'sans',
  phase: { start_delay: 'sd', alignment: 'al', sync: 'sy', async: 'as', ack: 'ak', finalize: 'fi', pending: 'pe' },
} as unknown as Theme;

const row = (o: Partial<GanttRow>): GanttRow => ({
  key: 'k', kind: 'vertex', vertexId: 'v', vertexName: 'Source', segments: [], acknowledged: true, critical: false,
  acked: 2, total: 2, expanded: false, ...o,
});

function input(rows: GanttRow[], o: Partial<GanttDrawInput> = {}): GanttDrawInput {
  let y = 0;
  const tops = rows.map((r) => ((y += r.kind === 'vertex' ? 22 : 16), y - (r.kind === 'vertex' ? 22 : 16)));
  return {
    rows, tops, domainMs: 1000, theme, endMs: 1000, originMarks: new Map(),
    text: { span: (ms) => `${ms} ms`, count: (n) => String(n), subtask: (n) => `subtask ${n}`, notFetched: 'not fetched', fromTrigger: 'from trigger' },
    ...o,
  };
}

describe('paintGantt', () => {
  beforeEach(() => {
    vi.stubGlobal('document', { createElement: () => ({ width: 0, height: 0, getContext: () => ({ beginPath() {}, moveTo() {}, lineTo() {}, stroke() {} }) }) });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('paints each phase from its start at LABEL_W + start/domain × width, in its colour', () => {
    const { ctx, fills } = recorder();
    const r = row({ segments: [{ phase: 'start_delay', from: 0, to: 250 }, { phase: 'async', from: 250, to: 1000 }], endMs: 1000 });
    paintGantt(ctx, input([r]), 800, 300, 0, 400);
    const sd = fills.find((f) => f.style === 'sd')!;
    const as = fills.find((f) => f.style === 'as')!;
    expect(sd.x).toBe(LABEL_W); // 250 + 0/1000 × 400
    expect(sd.w).toBe(100); // 250 ms of 1000 over 400 px
    expect(as.x).toBe(LABEL_W + 100);
    expect(as.w).toBe(300);
    // The vertex row sits below the axis: its bar (12 px) is centred in its 22 px row.
    expect(sd.y).toBe(AXIS_H + 11 - 6);
  });

  it('labels rows, says which vertex has no stats, colours the critical path and the hovered row', () => {
    const { ctx, fills, texts } = recorder();
    const rows = [
      row({ key: 'a', vertexName: 'Map', critical: true, acked: 3, total: 4, segments: [{ phase: 'sync', from: 0, to: 10 }] }),
      row({ key: 'b', kind: 'subtask', subtask: 2, segments: [] }),
      row({ key: 'c', vertexName: 'Sink', missing: true }),
    ];
    paintGantt(ctx, input(rows, { hoverKey: 'b' }), 800, 300, 0, 400);
    const map = texts.find((t) => t.text.includes('Map'))!;
    expect(map.style).toBe('critical');
    expect(texts.some((t) => t.text === '3/4')).toBe(true);
    expect(texts.some((t) => t.text === 'subtask 2')).toBe(true);
    const nf = texts.find((t) => t.text === 'not fetched')!;
    expect(nf.style).toBe('warn');
    expect(nf.x).toBe(LABEL_W + 6);
    expect(fills.some((f) => f.style === 'hover' && f.y === AXIS_H + 22)).toBe(true);
    expect(texts.some((t) => t.text === 'from trigger')).toBe(true);
  });

  it('draws only the rows in view after scrolling', () => {
    const { ctx, texts } = recorder();
    const rows = Array.from({ length: 100 }, (_, i) => row({ key: `r${i}`, vertexName: `V${i}` }));
    paintGantt(ctx, input(rows), 800, AXIS_H + 44, 22 * 50, 400);
    const names = texts.map((t) => t.text).filter((s) => s.includes('V'));
    expect(names.some((s) => s.includes('V50'))).toBe(true);
    expect(names.some((s) => s.includes('V10'))).toBe(false);
    expect(names.length).toBeLessThanOrEqual(3);
  });
});
