import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../../src/lib/printable.js';

/** Anything that could drive a terminal or end a line. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
/** Legitimate text in names and messages: accents, emoji (with joiners and variation selectors), CJK, right to left. */
const LEGITIMATE = ['Crème brûlée — naïve façade', '👩‍💻 on call 🔥 ❤️ 🇩🇪', '監視ダッシュボード 仪表板 대시보드', 'لوحة المعلومات שלום', 'a\u00a0b\u00adc', 'tab-free « quotes » ‘’ “”'];

const text = fc.string({ unit: fc.oneof(fc.constantFrom('\n', '\r', '\t', '\u001b', '\u0007', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029', '\u202e', '\u2066', '\u200f', '\u061c', ':', '['), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 30 });

describe('printable: one line of text from outside, safe for a terminal and a CI log', () => {
  it('replaces each control character, line breaks and tab included, with one space', () => {
    expect(printable('CPU\u0007 load\n\u009b1')).toBe('CPU  load  1');
    expect(printable('e\u001b]0;PWNED\u0007\u001b[2K\u001b[1Avil.yaml')).toBe('e ]0;PWNED  [2K [1Avil.yaml');
    expect(printable('ok\n::error title=Injected::x\r\n.yaml')).toBe('ok ::error title=Injected::x  .yaml');
    expect(printable('a\tb\u007fc\u0085d\u2028e\u2029f')).toBe('a b c d e f');
  });

  it('replaces each bidirectional formatting character, which shows a name in another order than it is, with one space', () => {
    // U+202E before `lmth.exe` shows `exe.html` on a terminal.
    expect(printable('invoice\u202elmth.exe')).toBe('invoice lmth.exe');
    expect(printable('a\u202ab\u202bc\u202cd\u202de\u2066f\u2067g\u2068h\u2069i\u200ej\u200fk\u061cl')).toBe('a b c d e f g h i j k l');
  });

  it('leaves legitimate Unicode as it is', () => {
    for (const words of LEGITIMATE) expect(printable(words)).toBe(words);
  });

  it('is one line, as long as the text, and a second pass changes nothing (never escaped twice)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const once = printable(t);
        expect(once).not.toMatch(CONTROL);
        expect(once).toHaveLength(t.length);
        expect(printable(once)).toBe(once);
        // Only control characters change (each is one UTF-16 unit, so the two line up).
        for (let i = 0; i < t.length; i++) expect(once[i] === t[i] || (CONTROL.test(t[i] ?? '') && once[i] === ' ')).toBe(true);
      }),
    );
  });
});

describe('printableLines: text of several lines that dashcd laid out', () => {
  it('keeps its line feeds and replaces every other control character with one space', () => {
    expect(printableLines('dashcd.yaml is invalid:\n  a\u001b[2K\r\n  b\u2028c')).toBe('dashcd.yaml is invalid:\n  a [2K \n  b c');
    for (const words of LEGITIMATE) expect(printableLines(`${words}\n${words}`)).toBe(`${words}\n${words}`);
  });

  it('keeps the same lines, each one printable, and a second pass changes nothing', () => {
    fc.assert(
      fc.property(text, (t) => {
        const once = printableLines(t);
        expect(once).not.toMatch(CONTROL_BUT_LF);
        expect(once.split('\n')).toEqual(t.split('\n').map(printable));
        expect(printableLines(once)).toBe(once);
      }),
    );
  });
});
