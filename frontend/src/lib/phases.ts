// The phase vocabulary as the UI shows it: order, colours and i18n keys. The
// durations themselves always come from the backend (backend/analyze).
import { SUBTASK_PHASES, type Phase, type PhaseOrE2E, type Phases } from './api';

/** CSS variable holding a phase's colour; app.css defines one per phase and theme. */
export function phaseColorVar(p: PhaseOrE2E | 'pending'): string {
  return `--phase-${p.replaceAll('_', '-')}`;
}

/** i18n key of a phase's short name. */
export function phaseKey(p: PhaseOrE2E): string {
  return `phase.${p}`;
}

/** phaseValue reads a phase; undefined means "not observable", never 0. */
export function phaseValue(ph: Phases | undefined, p: Phase): number | undefined {
  const v = ph?.[p];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** observedPhases lists the subtask phases present in ph, in the order they happen. */
export function observedPhases(ph: Phases | undefined): Phase[] {
  return SUBTASK_PHASES.filter((p) => phaseValue(ph, p) !== undefined);
}

/**
 * missingPhases lists phases of the vocabulary that the data does not show
 * for this checkpoint (to say "not observable" rather than print 0).
 */
export function missingPhases(ph: Phases | undefined, vocabulary: readonly Phase[]): Phase[] {
  return vocabulary.filter((p) => phaseValue(ph, p) === undefined);
}
