// Keyboard shortcuts as pure functions of the key event, so the bindings can
// be tested without a browser. Components turn the actions into calls.

/** The parts of a KeyboardEvent the bindings read. */
export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
}

export interface KeyContext {
  /** focus is in a text field, select or editable element */
  typing: boolean;
  /** a modal dialog is open */
  dialogOpen: boolean;
}

export type GlobalAction =
  | { kind: 'source'; index: number }
  | { kind: 'switcher' }
  | { kind: 'view'; view: string }
  | { kind: 'back' }
  | { kind: 'help' };

/** Single-key view shortcuts (no modifier, outside text fields); J: every job, the fleet. */
export const VIEW_KEYS: Record<string, string> = {
  t: 'job',
  h: 'heatmap',
  c: 'compare',
  r: 'retention',
  j: 'fleet',
};

function digit(e: KeyLike): number | undefined {
  // code survives Alt on macOS, which turns the key into a symbol.
  const m = /^Digit([1-9])$/.exec(e.code ?? '') ?? /^([1-9])$/.exec(e.key);
  return m ? Number(m[1]) : undefined;
}

/**
 * globalAction maps a keydown to an app-wide action: Ctrl/Cmd/Alt+1..9 picks
 * the n-th cluster or capture, Ctrl/Cmd+K opens the quick switcher, T/H/C/R/J
 * open the timeline, heatmaps, compare, retention and fleet views, ? lists the
 * shortcuts, Esc goes back. Views handle their own keys first.
 */
export function globalAction(e: KeyLike, ctx: KeyContext): GlobalAction | null {
  const mod = !!(e.ctrlKey || e.metaKey);
  if ((mod || e.altKey) && !e.shiftKey) {
    const n = digit(e);
    if (n !== undefined) return { kind: 'source', index: n - 1 };
  }
  if (mod && !e.altKey && (e.key === 'k' || e.key === 'K')) return { kind: 'switcher' };
  if (mod || e.altKey || ctx.typing || ctx.dialogOpen) return null;
  if (e.key === 'Escape') return { kind: 'back' };
  if (e.key === '?') return { kind: 'help' };
  const view = VIEW_KEYS[e.key.toLowerCase()];
  if (view && !e.shiftKey) return { kind: 'view', view };
  return null;
}

export type TimelineAction = 'zoomIn' | 'zoomOut' | 'panLeft' | 'panRight' | 'fit' | 'back' | 'prevMarker' | 'nextMarker' | 'openMarker' | 'note';

/**
 * timelineAction maps a keydown on the timeline view: W/S zoom, A/D and arrows pan, F fits, Esc goes back,
 * [ and ] step through the change markers, Enter opens the chosen marker's before/after, N adds a note.
 */
export function timelineAction(e: KeyLike, ctx: KeyContext): TimelineAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey || ctx.typing || ctx.dialogOpen) return null;
  switch (e.key) {
    case 'w':
    case 'W':
    case '+':
    case '=':
      return 'zoomIn';
    case 's':
    case 'S':
    case '-':
      return 'zoomOut';
    case 'a':
    case 'A':
    case 'ArrowLeft':
      return 'panLeft';
    case 'd':
    case 'D':
    case 'ArrowRight':
      return 'panRight';
    case 'f':
    case 'F':
      return 'fit';
    case 'Escape':
      return 'back';
    case '[':
      return 'prevMarker';
    case ']':
      return 'nextMarker';
    case 'Enter':
      return 'openMarker';
    case 'n':
    case 'N':
      return 'note';
  }
  return null;
}

/** isTyping reports whether an element takes text input, so letter shortcuts stay off. */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const h = el as HTMLElement;
  return !!h.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(h.tagName);
}

export type FleetAction = { kind: 'move'; delta: number } | { kind: 'open' } | { kind: 'filter' } | { kind: 'clear' };

/**
 * fleetAction maps a keydown on the fleet: ↑/↓ move the selection, Enter opens the selected job,
 * / focuses the filter, Esc clears it. In the filter box itself (inFilter) ↑/↓, Enter and Esc
 * still act, so the list can be narrowed and walked without leaving it; in other fields none.
 */
export function fleetAction(e: KeyLike, ctx: KeyContext & { inFilter: boolean }): FleetAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey || ctx.dialogOpen || (ctx.typing && !ctx.inFilter)) return null;
  switch (e.key) {
    case 'ArrowDown':
      return { kind: 'move', delta: 1 };
    case 'ArrowUp':
      return { kind: 'move', delta: -1 };
    case 'Enter':
      return { kind: 'open' };
    case 'Escape':
      return { kind: 'clear' };
    case '/':
      return ctx.typing ? null : { kind: 'filter' };
  }
  return null;
}
