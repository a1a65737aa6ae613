// Chart colours from the page's CSS variables, so charts follow the light/dark
// theme, and tooltip helpers. Free of ECharts itself, which loads on demand.
export type { EChartsType } from 'echarts/core';

/** Colours of the current theme, read from CSS variables. */
export interface ChartTheme {
  text: string;
  muted: string;
  axis: string;
  grid: string;
  bg: string;
  panel: string;
  border: string;
  accent: string;
  danger: string;
  warn: string;
  ok: string;
  font: string;
  /** heat colours from cool to hot */
  heat: string[];
  phase: Record<string, string>;
}

export function readChartTheme(el: Element): ChartTheme {
  const cs = getComputedStyle(el);
  const v = (name: string, fallback: string) => cs.getPropertyValue(name).trim() || fallback;
  const phase: Record<string, string> = {};
  for (const p of ['start-delay', 'alignment', 'sync', 'async', 'ack', 'finalize', 'pending']) {
    phase[p.replace('-', '_')] = v(`--phase-${p}`, '#888');
  }
  return {
    text: v('--text', '#222'),
    muted: v('--text-muted', '#666'),
    axis: v('--axis', '#888'),
    grid: v('--grid', '#eee'),
    bg: v('--canvas-bg', '#fff'),
    panel: v('--panel', '#fff'),
    border: v('--border', '#ccc'),
    accent: v('--accent', '#2563eb'),
    danger: v('--status-failed', '#e03131'),
    warn: v('--gap', '#f08c00'),
    ok: v('--status-completed', '#2f9e44'),
    font: v('--font', 'sans-serif'),
    heat: [v('--heat-0', '#f1f3f5'), v('--heat-1', '#ffe066'), v('--heat-2', '#ff922b'), v('--heat-3', '#e03131'), v('--heat-4', '#862e9c')],
    phase,
  };
}

/** Common tooltip styling: the page's panel colours, exact values in the text. */
export function tooltipStyle(th: ChartTheme) {
  return {
    backgroundColor: th.panel,
    borderColor: th.border,
    textStyle: { color: th.text, fontFamily: th.font, fontSize: 12 },
    extraCssText: 'box-shadow: var(--shadow); max-width: 420px; white-space: normal;',
    confine: true,
  };
}

/** escapeHtml makes text safe for ECharts' HTML tooltips. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
