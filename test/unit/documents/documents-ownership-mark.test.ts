import { describe, expect, it } from 'vitest';
import { hasDocumentMark, withDocumentMark, withoutDocumentMark } from '../../../src/documents/ownership-mark.js';

const TAG = 'managed-by:dashcd';

describe('the ownership mark at the end of a document description', () => {
  it('is added once, after the description and a space, or alone', () => {
    expect(withDocumentMark('Errors of checkout', TAG)).toBe('Errors of checkout [managed-by:dashcd]');
    expect(withDocumentMark(undefined, TAG)).toBe('[managed-by:dashcd]');
    expect(withDocumentMark('', TAG)).toBe('[managed-by:dashcd]');
    expect(withDocumentMark('Errors [managed-by:dashcd]', TAG)).toBe('Errors [managed-by:dashcd]');
    expect(withDocumentMark('[managed-by:dashcd]', TAG)).toBe('[managed-by:dashcd]');
  });

  it('is found only as a word of its own at the end, for this tag', () => {
    expect(hasDocumentMark('[managed-by:dashcd]', TAG)).toBe(true);
    expect(hasDocumentMark('Errors [managed-by:dashcd]', TAG)).toBe(true);
    expect(hasDocumentMark('Errors[managed-by:dashcd]', TAG)).toBe(false);
    expect(hasDocumentMark('[managed-by:dashcd] Errors', TAG)).toBe(false);
    expect(hasDocumentMark('Errors [other]', TAG)).toBe(false);
    expect(hasDocumentMark('managed-by:dashcd', TAG)).toBe(false);
    expect(hasDocumentMark(undefined, TAG)).toBe(false);
    expect(hasDocumentMark('x [team-a]', 'team-a')).toBe(true);
  });

  it('is taken off for the file, leaving no description when nothing else was there', () => {
    expect(withoutDocumentMark('Errors of checkout [managed-by:dashcd]', TAG)).toBe('Errors of checkout');
    expect(withoutDocumentMark('Errors   [managed-by:dashcd]', TAG)).toBe('Errors');
    expect(withoutDocumentMark('[managed-by:dashcd]', TAG)).toBeUndefined();
    expect(withoutDocumentMark('Errors', TAG)).toBe('Errors');
    expect(withoutDocumentMark('', TAG)).toBeUndefined();
    expect(withoutDocumentMark(undefined, TAG)).toBeUndefined();
    expect(withoutDocumentMark('Errors[managed-by:dashcd]', TAG)).toBe('Errors[managed-by:dashcd]');
  });

  it('round-trips: what pull writes gets the same description back from apply', () => {
    for (const description of ['Errors of checkout', undefined, 'with [brackets] inside']) {
      const marked = withDocumentMark(description, TAG);
      expect(hasDocumentMark(marked, TAG)).toBe(true);
      expect(withoutDocumentMark(marked, TAG)).toBe(description);
    }
  });
});
