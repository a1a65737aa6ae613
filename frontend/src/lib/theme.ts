// The colour scheme, read from the page's CSS variables (app.css) so canvases
// and charts follow the light and dark themes. The one reader of those
// variables for drawing code: the timeline (draw.ts), the Gantt and the
// ECharts views all take a Theme.

/** Each colour: its CSS variable and the value used when it is unset. */
import { phaseColorVar } from './phases';

const VARS = {
  bg: ['--canvas-bg', '#fff'],
  text: ['--text', '#222'],
  muted: ['--text-muted', '#666'],
  axis: ['--axis', '#888'],
  grid: ['--grid', '#eee'],
  panel: ['--panel', '#fff'],
  panel2: ['--panel-2', '#f4f4f4'],
  border: ['--border', '#ccc'],
  accent: ['--accent', '#2563eb'],
  hover: ['--hover', '#eef'],
  highlight: ['--highlight', '#000'],
  critical: ['--critical', '#c92a2a'],
  warn: ['--warn', '#b26a00'],
  completed: ['--status-completed', '#2f9e44'],
  failed: ['--status-failed', '#e03131'],
  inProgress: ['--status-inprogress', '#1c7ed6'],
  endedUnseen: ['--status-ended-unseen', '#868e96'],
  gap: ['--gap', '#f08c00'],
  laneBp: ['--lane-bp', '#f76707'],
  laneSize: ['--lane-size', '#1c7ed6'],
  laneCommit: ['--lane-commit', '#ae3ec9'],
  laneCustom: ['--lane-custom', '#0ca678'],
  font: ['--font', 'sans-serif'],
} as const;

const HEAT = ['#f1f3f5', '#ffe066', '#ff922b', '#e03131', '#862e9c'];
const PHASES = ['start_delay', 'alignment', 'sync', 'async', 'ack', 'finalize', 'pending'] as const;

export type Theme = { [K in keyof typeof VARS]: string } & {
  /** heat colours from cool to hot (--heat-0 … --heat-4) */
  heat: string[];
  /** per phase, from phaseColorVar */
  phase: Record<(typeof PHASES)[number], string>;
};

/** readTheme reads the colours in force at el. */
export function readTheme(el: Element): Theme {
  const cs = getComputedStyle(el);
  const v = (name: string, fallback: string) => cs.getPropertyValue(name).trim() || fallback;
  const out = {} as Record<string, unknown>;
  for (const [k, [name, fallback]] of Object.entries(VARS)) out[k] = v(name, fallback);
  out.heat = HEAT.map((f, i) => v(`--heat-${i}`, f));
  out.phase = Object.fromEntries(PHASES.map((p) => [p, v(phaseColorVar(p), '#888')]));
  return out as Theme;
}

/** onSchemeChange calls fn when the OS switches between light and dark; returns the unsubscribe. */
export function onSchemeChange(fn: () => void): () => void {
  const mq = window.matchMedia('(prefers-color-scheme: dark)');
  mq.addEventListener('change', fn);
  return () => mq.removeEventListener('change', fn);
}
