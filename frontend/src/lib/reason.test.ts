import { describe, expect, it } from 'vitest';
import i18next from 'i18next';
import en from '../i18n/en.json';
import zh from '../i18n/zh.json';
import type { ReasonPart } from './api';
import { basisText, findingText, notesText, reasonText } from './reason';

function translator(lng: 'en' | 'zh') {
  const inst = i18next.createInstance();
  void inst.init({ resources: { en: { translation: en }, zh: { translation: zh } }, lng, fallbackLng: 'en', initAsync: false, interpolation: { escapeValue: false } });
  return { t: (k: string, o?: Record<string, unknown>) => inst.t(k, o) as string, has: (k: string) => inst.exists(k) };
}

// The phase-2.3 sample's reason as the analysis sends it (see backend/analyze sample_test.go).
const sample = {
  reason:
    "checkpoint 28, the one judged slow, spent its time waiting for barriers; the sampled alignment time reached 9925 ms of checkpoint 28's 19022 ms, far above the other checkpoints; in an aligned checkpoint barriers queue behind buffered in-flight data, so a long start delay or alignment is the mark of backpressure; no backpressure gauge was recorded in their windows; a correlation cannot confirm it; no completed checkpoint has backpressure samples in its window (need 8 for a verdict on upstream backpressure).",
  reason_parts: <ReasonPart[]>[
    { code: 'barrier_one', args: { id: '28' } },
    { code: 'barrier_gauge', args: { ms: '9925', id: '28', e2e: '19022' } },
    { code: 'barrier_mark' },
    { code: 'barrier_no_gauge' },
    { code: 'cannot_confirm' },
    { code: 'bp_none', args: { need: '8' } },
  ],
};

const failure = {
  basis: 'the checkpoint timeout elapsed; every downstream subtask acknowledged, so Slow Snapshot had taken its barriers and forwarded its own (Flink does so before snapshotting): it was in its snapshot',
  basis_parts: <ReasonPart[]>[{ code: 'f_expired' }, { code: 'f_in_snapshot', args: { vertex: 'Slow Snapshot' } }],
};

// The report-format example's before/after: unaligned checkpoints turned on (backend/analyze/beforeafter.go).
const effect = {
  finding:
    "after execution.checkpointing.unaligned.enabled went false → true; end-to-end p90 fell from 1.2 s to 314 ms (−73%, 95% interval −74…−73%); alignment's share of the critical path fell from 66% to 3%.",
  finding_parts: <ReasonPart[]>[
    { code: 'effect_after_config', args: { key: 'execution.checkpointing.unaligned.enabled', new: 'true', old: 'false' } },
    { code: 'effect_fell', args: { after: '314 ms', before: '1.2 s', change: '−73', conf: '95', high: '−73', low: '−74', stat: 'p90' } },
    { code: 'effect_share_fell', args: { after: '3', before: '66', phase: 'alignment' } },
  ],
};

type Say = (t: (k: string, o?: Record<string, unknown>) => string, has: (k: string) => boolean) => string;

// A text the backend sends in English with its clauses: said in English as sent, in Chinese
// from the clauses (zh: what the Chinese holds; english: what it must not hold; a reason is a
// sentence, a basis is not).
describe.each([
  {
    name: 'reasonText',
    say: ((t, has) => reasonText(sample, t, has)) as Say,
    sent: sample.reason,
    zh: ['checkpoint 28 是唯一被判为慢的', '9925 毫秒', '19022 毫秒'],
    english: /\{\{|waiting for barriers/,
    sentence: true,
  },
  {
    name: 'basisText',
    say: ((t, has) => basisText(failure, t, has)) as Say,
    sent: failure.basis,
    zh: ['checkpoint 超时时间已到；', 'Slow Snapshot'],
    english: /\{\{|timeout elapsed/,
    sentence: false,
  },
  {
    name: 'findingText',
    say: ((t, has) => findingText(effect, t, has)) as Say,
    sent: effect.finding,
    zh: ['在 execution.checkpointing.unaligned.enabled 由 false 改为 true 之后；', '端到端 p90 从 1.2 s 降到 314 ms（−73%，95% 区间 −74…−73%）', 'alignment 在关键路径中的占比从 66% 降到 3%'],
    english: /\{\{|fell from|after execution/,
    sentence: true,
  },
])('$name', ({ say, sent, zh, english, sentence }) => {
  it('says in English exactly what the backend wrote', () => {
    const { t, has } = translator('en');
    expect(say(t, has)).toBe(sent);
  });

  it('says it in Chinese with every argument filled', () => {
    const { t, has } = translator('zh');
    const s = say(t, has);
    for (const part of zh) expect(s).toContain(part);
    expect(s.endsWith('。')).toBe(sentence);
    expect(s).not.toMatch(english);
  });
});

describe('reasonText', () => {
  it('falls back to the English text without parts or with a clause it does not know', () => {
    const { t, has } = translator('zh');
    expect(reasonText({ reason: 'plain.', reason_parts: [] }, t, has)).toBe('plain.');
    expect(reasonText({ reason: 'plain.', reason_parts: [{ code: 'from_a_newer_backend' }] }, t, has)).toBe('plain.');
  });
});

describe('notesText', () => {
  const v = {
    notes: ['finalize (last ack → completion) is absent: the engine does not report it for these checkpoints', '43 checkpoint(s) are known only as gaps (never seen: evicted from the engine\'s history before a poll, or not recorded) and are not analysed'],
    note_parts: <ReasonPart[]>[{ code: 'note_no_finalize' }, { code: 'note_gaps', args: { n: '43' } }],
  };
  it('keeps the English in English and translates each note in Chinese', () => {
    expect(notesText(v, translator('en').t, translator('en').has)).toEqual(v.notes);
    const zh = notesText(v, translator('zh').t, translator('zh').has);
    expect(zh[1]).toContain('43');
    expect(zh.join('')).toMatch(/[\u4e00-\u9fff]/);
  });
  it('falls back to the English notes when the clauses do not match them', () => {
    expect(notesText({ notes: ['x'] }, translator('zh').t, translator('zh').has)).toEqual(['x']);
  });
});
