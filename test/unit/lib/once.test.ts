import { describe, expect, it } from 'vitest';
import { once } from '../../../src/lib/once.js';

describe('once', () => {
  it('makes nothing until asked, then makes the value once and gives it to every later call', () => {
    let made = 0;
    const value = once(() => ({ n: ++made }));
    expect(made).toBe(0);
    const first = value();
    expect(first).toEqual({ n: 1 });
    expect(value()).toBe(first);
    expect(made).toBe(1);
  });

  it('keeps a falsy value as made, not making it again', () => {
    let made = 0;
    const value = once(() => (made++, undefined));
    expect(value()).toBeUndefined();
    expect(value()).toBeUndefined();
    expect(made).toBe(1);
  });

  it('makes it again after a throw, since nothing was made', () => {
    let calls = 0;
    const value = once(() => {
      if (++calls === 1) throw new Error('not yet');
      return 'made';
    });
    expect(() => value()).toThrow('not yet');
    expect(value()).toBe('made');
    expect(calls).toBe(2);
  });
});
