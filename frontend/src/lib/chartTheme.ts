// Tooltip helpers for the ECharts views (colours come from theme.ts). Free of
// ECharts itself, which loads on demand.
import type { Theme } from './theme';
export type { EChartsType } from 'echarts/core';

/** Common tooltip styling: the page's panel colours, exact values in the text. */
export function tooltipStyle(th: Theme) {
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
