import { Lexer, LineCounter } from 'yaml';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { checkDashboardSource } from '../../../src/desired/check-file.js';
import { checkDocumentSource } from '../../../src/desired/document-check.js';
import { fastParseYaml } from '../../../src/desired/fast-yaml/fast-parse.js';
import { hasTooManyTokens, isTooManyTokens, MAX_YAML_TOKENS, parseYamlDocument, parseYamlDocuments } from '../../../src/desired/yaml-hazards.js';

/** The tokens yaml's lexer makes of a text. */
const tokensOf = (source: string): number => [...new Lexer().lex(source)].length;

/** A block list under `k:` of `items` items: 5 tokens each (`-`, blank, marker, `1`, line break), 5 for `k:\n` and the start. */
const blockList = (items: number): string => `k:\n${'- 1\n'.repeat(items)}`;
const blockListTokens = (items: number): number => 5 + 5 * items;

describe('hasTooManyTokens: more than MAX_YAML_TOKENS tokens, counted no further than that', () => {
  it('counts the tokens of the lexer, as the list shape says', () => {
    expect(tokensOf(blockList(3))).toBe(blockListTokens(3));
    expect(tokensOf('a')).toBe(3);
  });

  it('says no at the limit and yes one token past it', () => {
    const items = (MAX_YAML_TOKENS - 5) / 5;
    expect(hasTooManyTokens(blockList(items))).toBe(false);
    expect(hasTooManyTokens(`${blockList(items)}a`)).toBe(true);
    expect(hasTooManyTokens(blockList(items + 1))).toBe(true);
  });

  /** Runs `check` with the lexer watched: how many times it was started, and how many tokens were taken from it. */
  function watchingTheLexer(check: () => void): { runs: number; tokens: number } {
    const lex = Lexer.prototype.lex;
    const seen = { runs: 0, tokens: 0 };
    const spy = vi.spyOn(Lexer.prototype, 'lex').mockImplementation(function* (this: Lexer, source: string, incomplete?: boolean) {
      seen.runs++;
      for (const token of lex.call(this, source, incomplete)) {
        seen.tokens++;
        yield token;
      }
    });
    try {
      check();
    } finally {
      spy.mockRestore();
    }
    return seen;
  }

  it('does not lex a text too short to reach the limit (no character makes more than two tokens, but for the first)', () => {
    const longest = '1'.repeat((MAX_YAML_TOKENS - 1) / 2);
    expect(watchingTheLexer(() => expect(hasTooManyTokens(longest)).toBe(false))).toEqual({ runs: 0, tokens: 0 });
    expect(watchingTheLexer(() => expect(hasTooManyTokens(`${longest}1`)).toBe(false)).runs).toBe(1);
  });

  it('lexes a long text only as far as one token past the limit', () => {
    const huge = `[${'1,'.repeat(2 * 1024 * 1024)}1]`;
    expect(watchingTheLexer(() => expect(hasTooManyTokens(huge)).toBe(true))).toEqual({ runs: 1, tokens: MAX_YAML_TOKENS + 1 });
  });
});

describe('parseYamlDocument(s): a text past MAX_YAML_TOKENS is refused before yaml builds anything', () => {
  const atLimit = blockList((MAX_YAML_TOKENS - 5) / 5);
  const pastLimit = blockList((MAX_YAML_TOKENS - 5) / 5 + 1);

  it('parses a text at the limit as yaml does', () => {
    const doc = parseYamlDocument(atLimit);
    expect(doc.errors).toEqual([]);
    expect(isTooManyTokens(doc)).toBe(false);
    expect((doc.toJS() as { k: number[] }).k).toHaveLength((MAX_YAML_TOKENS - 5) / 5);
  });

  it('answers one document with one error at the start, saying what to do', () => {
    const lines = new LineCounter();
    const doc = parseYamlDocument(pastLimit, { lineCounter: lines, prettyErrors: false });
    expect(isTooManyTokens(doc)).toBe(true);
    expect(doc.contents).toBeNull();
    expect(doc.errors.map((e) => [e.code, e.pos])).toEqual([['RESOURCE_EXHAUSTION', [0, 0]]]);
    expect(doc.errors[0]?.message).toBe(
      'more than 400,000 YAML tokens (values, keys, punctuation, blanks, comments) in one file: make it smaller, or write it as JSON or plain block YAML (no anchors, tags or tabs), which a dashboard or document file is read in up to 4 MiB',
    );
    expect(lines.linePos(0)).toEqual({ line: 1, col: 1 });
    const docs = parseYamlDocuments(pastLimit, { prettyErrors: false });
    expect(docs).toHaveLength(1);
    expect(isTooManyTokens(docs[0] as (typeof docs)[number])).toBe(true);
  });

  it('is not fooled by a document yaml refuses for another reason', () => {
    const doc = parseYamlDocument('a: [\n');
    expect(doc.errors.length).toBeGreaterThan(0);
    expect(isTooManyTokens(doc)).toBe(false);
  });

  it('makes its errors without stacks, and leaves the stack limit as it was', () => {
    // A known value: read from the process, a limit another parse had left at 0 would pass for restored.
    const original = Error.stackTraceLimit;
    Error.stackTraceLimit = 12;
    const limit = 12;
    onTestFinished(() => {
      Error.stackTraceLimit = original;
    });
    const doc = parseYamlDocument('a: 1\na: 2\nb: [\n');
    expect(doc.errors.length).toBe(2);
    for (const error of doc.errors) expect(error.stack?.split('\n').filter((line) => line.trimStart().startsWith('at '))).toEqual([]);
    expect(Error.stackTraceLimit).toBe(limit);
    const docs = parseYamlDocuments('a: 1\na: 2\n');
    expect(docs[0]?.errors[0]?.stack?.includes('\n    at ')).toBe(false);
    expect(Error.stackTraceLimit).toBe(limit);
  });
});

describe('a dashboard or document file past MAX_YAML_TOKENS', () => {
  /** A classic dashboard with no owner and an unknown key holding a list of `items`. */
  const classic = (items: number): string => `dashboardMetadata:\n  name: x\ntiles: []\nextra${blockList(items).slice(1)}`;
  const pastLimit = MAX_YAML_TOKENS / 5;

  it('that the fast parser reads is checked all the same: every problem with its path, at 1:1', () => {
    const source = classic(pastLimit);
    expect(fastParseYaml(source).ok).toBe(true);
    expect(checkDashboardSource(source)).toEqual({
      ok: false,
      problems: [{ line: 1, col: 1, path: 'dashboardMetadata.owner', message: 'Required' }],
      warnings: [{ line: 1, col: 1, path: 'extra', message: 'unknown key (known here: id, metadata, dashboardMetadata, tiles)' }],
    });
  });

  it('below the limit has its problems placed in the text', () => {
    const check = checkDashboardSource(classic(1000));
    expect(check.ok ? [] : check.problems).toEqual([{ line: 2, col: 3, path: 'dashboardMetadata.owner', message: 'Required' }]);
  });

  it('that needs yaml (an anchor) is refused, not parsed', () => {
    const source = classic(pastLimit).replace('dashboardMetadata:', 'dashboardMetadata: &m');
    expect(fastParseYaml(source).ok).toBe(false);
    const check = checkDashboardSource(source);
    expect(check.ok ? [] : check.problems.map((p) => [p.line, p.col, p.message.slice(0, 29)])).toEqual([[1, 1, 'more than 400,000 YAML tokens']]);
  });

  it('a notebook the fast parser read is checked with its value, its problems at 1:1', () => {
    const sections = Array.from({ length: MAX_YAML_TOKENS / 16 }, (_, i) => `  - { id: s${i}, type: markdown, markdown: x }`).join('\n');
    const source = `document:\n  kind: notebook\n  name: Big\nversion: "7"\nsections:\n${sections}\n  - { id: s0, type: markdown, markdown: y }\n`;
    expect(hasTooManyTokens(source)).toBe(true);
    const fast = fastParseYaml(source);
    expect(fast.ok).toBe(true);
    expect(checkDocumentSource(source, fast.ok ? { value: fast.value } : undefined)).toEqual({
      problems: [{ line: 1, col: 1, path: `sections[${MAX_YAML_TOKENS / 16}].id`, message: 'section id "s0" is also sections[0]\'s: ids must be unique' }],
      warnings: [],
    });
  });
});
