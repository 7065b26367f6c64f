import fc from 'fast-check';

/**
 * JSON texts for differential tests against JSON.parse: values with the characters and numbers that trip scanners,
 * written every way JSON allows, not only JSON.stringify's.
 */

/** A number token written as it is: digits JSON.stringify could not write (beyond Number precision, `1.50`, `1E+2`). */
export class RawNumber {
  constructor(readonly text: string) {}
}

export type JsonModel = null | boolean | number | string | RawNumber | JsonModel[] | { [name: string]: JsonModel };

/** Choices a writer makes; always 0 writes what JSON.stringify writes. */
export type Pick = (options: number) => number;

const WHITESPACE = [' ', '\n', '\t', '\r', '\r\n  ', ' \t'];

/**
 * Writes `value` as JSON, spelled as `pick` chooses: whitespace between tokens, escapes JSON.stringify does not write
 * (`\/`, `\u0041`, `\u00E9` in either case), other spellings of numbers, and a member written twice (the first time
 * with another value, which JSON.parse drops).
 */
export function writeJson(value: JsonModel, pick: Pick): string {
  const space = (): string => (pick(6) === 1 ? (WHITESPACE[pick(WHITESPACE.length)] as string) : '');
  if (value instanceof RawNumber) return value.text;
  if (typeof value === 'number') return writeNumber(value, pick);
  if (typeof value === 'string') return writeString(value, pick);
  if (Array.isArray(value)) return `[${space()}${value.map((item) => writeJson(item, pick)).join(`${space()},${space()}`)}${space()}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([name, item]) => `${writeString(name, pick)}${space()}:${space()}${writeJson(item, pick)}`);
    const first = Object.keys(value)[0];
    if (first !== undefined && pick(5) === 1) members.unshift(`${writeString(first, pick)}:${writeJson([0, 'dropped', null, { id: 'x' }][pick(4)] as JsonModel, pick)}`);
    return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
  }
  return JSON.stringify(value);
}

function writeNumber(value: number, pick: Pick): string {
  const plain = JSON.stringify(value);
  if (!/^-?\d+$/.test(plain) || pick(3) !== 1) return plain;
  return [`${plain}.0`, `${plain}e0`, `${plain}E+00`, value === 0 ? '0e-1' : `${plain}0e-1`, value === 0 ? '-0' : `${plain}.000`][pick(5)] as string;
}

function writeString(value: string, pick: Pick): string {
  let out = '"';
  for (const char of JSON.stringify(value).slice(1, -1).match(/\\u[0-9a-f]{4}|\\.|[\s\S]/g) ?? []) {
    if (char.length === 1 && pick(8) === 1) {
      const hex = (char.codePointAt(0) as number).toString(16).padStart(4, '0');
      out += `\\u${pick(2) === 1 ? hex.toUpperCase() : hex}`;
    } else out += char === '/' && pick(2) === 1 ? '\\/' : char;
  }
  return `${out}"`;
}

/** Texts of `values`, each written as a stream of choices picks. */
export function spelled(values: fc.Arbitrary<JsonModel>): fc.Arbitrary<string> {
  return fc.tuple(values, fc.infiniteStream(fc.nat(1000))).map(([value, stream]) => {
    const choices = stream[Symbol.iterator]();
    return writeJson(value, (options) => (choices.next().value as number) % options);
  });
}

/**
 * fast-check's 'binary' string unit, made as fast-check makes it: every code point but the surrogates, U+0000 first.
 * `fc.string({ unit: 'binary' })` is not used: making it asks whether each character of a few names is a unit, which
 * fast-check answers by building a map of all 1.1 million code points (1.3 s in every test worker importing this file).
 */
const binaryUnit = fc.mapToConstant(
  { num: 0xd800, build: (i) => String.fromCodePoint(i) },
  { num: 0x10ffff - 0xe000 + 1, build: (i) => String.fromCodePoint(0xe000 + i) },
);

/** Whether `value` is one character of `binaryUnit`, answered as fast-check would, without its map. */
const isOneCodePoint = (value: unknown): value is string => typeof value === 'string' && [...value].length === 1 && !/^[\ud800-\udfff]$/.test(value);

/**
 * `fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })` (the same values for the same seed, shrunk the same
 * way), answering `canShrinkWithoutContext` itself: `fc.string` asks it of its unit when it is made.
 */
class AnyCodePoint extends fc.Arbitrary<string> {
  private readonly unit = fc.array(binaryUnit, { minLength: 1, maxLength: 1 }).map(
    (units) => units.join(''),
    (value) => {
      if (!isOneCodePoint(value)) throw new Error('not one code point');
      return [value];
    },
  );

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<string> {
    return this.unit.generate(mrng, biasFactor);
  }

  canShrinkWithoutContext(value: unknown): value is string {
    return isOneCodePoint(value);
  }

  shrink(value: string, context: unknown): fc.Stream<fc.Value<string>> {
    return this.unit.shrink(value, context);
  }
}

/** Characters of strings: quotes, backslashes, controls, separators, surrogates (paired and lone), and any other. */
export const textUnits = fc.oneof(
  fc.constantFrom('a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', '\r', '\b', '\f', '\u0000', '\u001f', '\u007f', 'é', '😀', '\u2028', '\ud800', '{', ']', ':', ','),
  new AnyCodePoint(),
);
export const texts = fc.string({ unit: textUnits, maxLength: 8 });
const rawNumbers = fc
  .tuple(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.option(fc.stringMatching(/^[0-9]{1,4}$/)), fc.option(fc.integer({ min: -400, max: 400 })), fc.constantFrom('e', 'E'))
  .map(([integer, fraction, exponent, e]) => new RawNumber(`${integer}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `${e}${exponent}`}`));
export const numbers = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1e21, 5e-324, 2 ** 53 + 2), rawNumbers);

/** Any JSON value, its objects' member names drawn from `names` (and other texts). */
export function jsonModels(names: readonly string[]): fc.Arbitrary<JsonModel> {
  const memberNames = fc.oneof(fc.constantFrom(...names), texts);
  return fc.letrec<{ value: JsonModel }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      numbers,
      texts,
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(memberNames, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
}

/** Objects with the members `members` may generate (always the `required` ones), in any order. */
export function shuffledRecord(members: Record<string, fc.Arbitrary<JsonModel>>, required: string[] = []): fc.Arbitrary<JsonModel> {
  return fc
    .record(members, { requiredKeys: required })
    .chain((record) => fc.shuffledSubarray(Object.entries(record), { minLength: Object.keys(record).length }).map((entries) => Object.fromEntries(entries) as JsonModel));
}
