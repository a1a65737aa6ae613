import { describe, expect, it } from 'vitest';
import en from '../i18n/en.json';
import zh from '../i18n/zh.json';
import { ALL_PHASES, ATTENTIONS, CHANGE_KINDS } from './api';
import { BEFORE_AFTER_WINDOWS } from './compare';
import { FLEET_COLUMNS, FLEET_WINDOWS } from './fleet';
import { flattenKeys } from './lang';
import { VIEW_KEYS } from './keys';
import { views } from '../views/registry';

const enKeys = flattenKeys(en);
const zhKeys = flattenKeys(zh);
const exists = (keys: Map<string, unknown>, key: string) => keys.has(key) || keys.has(`${key}_one`) || keys.has(`${key}_other`);

/** Keys the views build from data (phases, verdicts, heatmap kinds…), which the literal-key test cannot see. */
const dynamic = [
  ...[...ALL_PHASES, 'end_to_end'].flatMap((p) => [`phase.${p}`, `phaseHelp.${p}`]),
  ...['backpressure', 'state_size', 'storage', 'healthy', 'inconclusive'].map((v) => `verdict.${v}`),
  ...['correlation', 'sustained_backpressure', 'bottleneck', 'slow_checkpoints', 'contrast'].map((b) => `basis.${b}`),
  ...['failure', 'phase', 'vertex'].flatMap((k) => [`heatmap.${k}`, `heatmap.explain.${k}`, `heatmap.empty.${k}`]),
  ...['subtask', 'vertex', 'checkpoint', 'pending', 'pendingVertex', 'pendingNoVertex'].map((k) => `bottleneck.${k}`),
  ...['trimmed', 'missed', 'partial'].map((k) => `checkpoint.detailLoss.${k}`),
  ...Object.values(views).map((v) => v.titleKey),
  ...[
    'keys.global',
    'keys.source',
    'keys.switcher',
    'keys.timeline',
    'keys.heatmap',
    'keys.compare',
    'keys.retention',
    'keys.back',
    'keys.help',
    'keys.timelineGroup',
    'keys.zoom',
    'keys.pan',
    'keys.brush',
    'keys.fit',
    'keys.rangeBack',
    'keys.markerStep',
    'keys.markerOpen',
    'keys.note',
    'keys.fleet',
    'keys.fleetGroup',
    'keys.fleetMove',
    'keys.fleetOpen',
    'keys.fleetFilter',
    'keys.fleetClear',
  ],
  ...ATTENTIONS.flatMap((a) => [`fleet.attention.${a}`, `fleet.attentionHelp.${a}`]),
  ...FLEET_COLUMNS.flatMap((c) => [`fleet.col.${c}`, `fleet.colHelp.${c}`]),
  ...FLEET_WINDOWS.map((w) => w.key),
  ...CHANGE_KINDS.map((k) => `changes.kind.${k}`),
  ...BEFORE_AFTER_WINDOWS.map((w) => w.key),
  ...['change', 'window'].map((b) => `beforeAfter.bound.${b}`),
];

describe('keys built from data', () => {
  it.each([
    ['en', enKeys],
    ['zh', zhKeys],
  ] as const)('exist in %s', (_, keys) => {
    expect(dynamic.filter((k) => !exists(keys, k))).toEqual([]);
  });

  it('cover every single-key view shortcut with a registered view', () => {
    expect(Object.values(VIEW_KEYS).filter((v) => !views[v])).toEqual([]);
  });
});
