import { describe, expect, it } from 'vitest';
import { fleetAction, globalAction, isTyping, timelineAction, type KeyLike } from './keys';

const free = { typing: false, dialogOpen: false };
const typing = { typing: true, dialogOpen: false };
const dialog = { typing: false, dialogOpen: true };

describe('globalAction', () => {
  it.each([
    [{ key: '2', code: 'Digit2', ctrlKey: true }, free, { kind: 'source', index: 1 }],
    [{ key: '1', code: 'Digit1', metaKey: true }, free, { kind: 'source', index: 0 }],
    // macOS turns Alt+3 into "£": the physical key still counts.
    [{ key: '£', code: 'Digit3', altKey: true }, free, { kind: 'source', index: 2 }],
    [{ key: '9', code: 'Digit9', altKey: true }, typing, { kind: 'source', index: 8 }],
    [{ key: '0', code: 'Digit0', ctrlKey: true }, free, null],
    [{ key: '2', code: 'Digit2', ctrlKey: true, shiftKey: true }, free, null],
    [{ key: 'k', ctrlKey: true }, free, { kind: 'switcher' }],
    [{ key: 'K', metaKey: true }, typing, { kind: 'switcher' }],
    [{ key: 'Escape' }, free, { kind: 'back' }],
    [{ key: 'Escape' }, dialog, null],
    [{ key: 'Escape' }, typing, null],
    [{ key: 'h' }, free, { kind: 'view', view: 'heatmap' }],
    [{ key: 'C' }, free, { kind: 'view', view: 'compare' }],
    [{ key: 't' }, free, { kind: 'view', view: 'job' }],
    [{ key: 'r' }, free, { kind: 'view', view: 'retention' }],
    [{ key: 'j' }, free, { kind: 'view', view: 'fleet' }],
    [{ key: 'j' }, typing, null],
    [{ key: 'h' }, typing, null],
    [{ key: 'h', ctrlKey: true }, free, null],
    [{ key: 'H', shiftKey: true }, free, null],
    [{ key: '?', shiftKey: true }, free, { kind: 'help' }],
    [{ key: 'w' }, free, null],
    [{ key: '2' }, free, null],
  ] as [KeyLike, typeof free, unknown][])('%j → %j', (e, ctx, want) => {
    expect(globalAction(e, ctx)).toEqual(want);
  });
});

describe('timelineAction', () => {
  it.each([
    ['w', 'zoomIn'],
    ['W', 'zoomIn'],
    ['+', 'zoomIn'],
    ['s', 'zoomOut'],
    ['-', 'zoomOut'],
    ['a', 'panLeft'],
    ['ArrowLeft', 'panLeft'],
    ['D', 'panRight'],
    ['ArrowRight', 'panRight'],
    ['f', 'fit'],
    ['Escape', 'back'],
    ['[', 'prevMarker'],
    [']', 'nextMarker'],
    ['Enter', 'openMarker'],
    ['n', 'note'],
    ['N', 'note'],
    ['x', null],
  ])('%s → %s', (key, want) => {
    expect(timelineAction({ key }, free)).toBe(want);
  });

  it('stays off with modifiers, in text fields and under dialogs', () => {
    expect(timelineAction({ key: 'w', ctrlKey: true }, free)).toBeNull();
    expect(timelineAction({ key: 'w' }, typing)).toBeNull();
    expect(timelineAction({ key: 'Escape' }, dialog)).toBeNull();
    expect(timelineAction({ key: ']' }, typing)).toBeNull();
    expect(timelineAction({ key: 'Enter' }, typing)).toBeNull();
    expect(timelineAction({ key: 'n', metaKey: true }, free)).toBeNull();
  });
});

describe('fleetAction', () => {
  const inFilter = { typing: true, dialogOpen: false, inFilter: true };
  const elsewhere = { ...free, inFilter: false };
  const inField = { ...typing, inFilter: false };
  it.each([
    [{ key: 'ArrowDown' }, elsewhere, { kind: 'move', delta: 1 }],
    [{ key: 'ArrowUp' }, elsewhere, { kind: 'move', delta: -1 }],
    [{ key: 'Enter' }, elsewhere, { kind: 'open' }],
    [{ key: '/' }, elsewhere, { kind: 'filter' }],
    [{ key: 'Escape' }, elsewhere, { kind: 'clear' }],
    // In the filter box the list is still walked and opened; "/" is typed.
    [{ key: 'ArrowDown' }, inFilter, { kind: 'move', delta: 1 }],
    [{ key: 'Enter' }, inFilter, { kind: 'open' }],
    [{ key: 'Escape' }, inFilter, { kind: 'clear' }],
    [{ key: '/' }, inFilter, null],
    // Another field (a select) keeps its keys; so do dialogs and modified keys.
    [{ key: 'ArrowDown' }, inField, null],
    [{ key: 'Enter' }, { ...dialog, inFilter: false }, null],
    [{ key: 'ArrowDown', ctrlKey: true }, elsewhere, null],
    [{ key: 'j' }, elsewhere, null],
  ] as [KeyLike, typeof elsewhere, unknown][])('%j in %j → %j', (e, ctx, want) => {
    expect(fleetAction(e, ctx)).toEqual(want);
  });
});

describe('isTyping', () => {
  it('recognises text inputs by tag', () => {
    expect(isTyping({ tagName: 'INPUT' } as unknown as Element)).toBe(true);
    expect(isTyping({ tagName: 'TEXTAREA' } as unknown as Element)).toBe(true);
    expect(isTyping({ tagName: 'SELECT' } as unknown as Element)).toBe(true);
    expect(isTyping({ tagName: 'DIV', isContentEditable: true } as unknown as Element)).toBe(true);
    expect(isTyping({ tagName: 'BUTTON' } as unknown as Element)).toBe(false);
    expect(isTyping(null)).toBe(false);
  });
});
