import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followsRef, matchesTagGlob } from '../../../src/source/follow.js';

/** The glob as the regular expression it means (`*` is `[^/]*`): right, and exponential on some inputs. */
function asRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
}

// Few letters, so patterns and names share characters and the walk goes back to a `*` often.
const patternText = fc.string({ unit: fc.constantFrom('a', 'b', '*', '/', '.'), maxLength: 10 });
const nameText = fc.string({ unit: fc.constantFrom('a', 'b', '/', '.'), maxLength: 14 });

describe('matchesTagGlob', () => {
  it('agrees with the regular expression the glob means, for every pattern and name', () => {
    fc.assert(
      fc.property(patternText, nameText, (pattern, name) => {
        expect(matchesTagGlob(pattern, name)).toBe(asRegExp(pattern).test(name));
      }),
      { numRuns: 3000 },
    );
  });

  it('matches within a segment, never across a slash, and takes a run of stars as one', () => {
    expect(matchesTagGlob('release-*', 'release-12')).toBe(true);
    expect(matchesTagGlob('release-*', 'release-')).toBe(true);
    expect(matchesTagGlob('release-*', 'release-1/2')).toBe(false);
    expect(matchesTagGlob('*/v*', 'team/v2')).toBe(true);
    expect(matchesTagGlob('*/v*', 'v2')).toBe(false);
    expect(matchesTagGlob('v**.*', 'v1.2')).toBe(true);
    expect(matchesTagGlob('v*.2', 'v1.3')).toBe(false);
    expect(matchesTagGlob('a*b*c', 'aXbYbZc')).toBe(true);
  });

  it('answers a committer-chosen pattern against a long tag at once (a RegExp backtracked for hours on this pair)', () => {
    // Pushed as a tag to a daemon whose dashcd.yaml follows `r********************x`: the webhook asks this.
    const pattern = `r${'*'.repeat(20)}x`;
    expect(followsRef({ tagPattern: pattern }, `refs/tags/r${'a'.repeat(64)}`)).toBe(false);
    expect(followsRef({ tagPattern: pattern }, `refs/tags/r${'a'.repeat(64)}x`)).toBe(true);
  });
});
