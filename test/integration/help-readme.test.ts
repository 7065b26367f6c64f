import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/run.js';
import { silentLogger } from '../../src/lib/logger.js';
import { helpFlags, isStatedDefault, mentionedFlags, tableAfter, usagePaths, type HelpFlag } from '../helpers/help-text.js';

/**
 * The documented flags against every command's `--help`: the README's command table, the daemon's flag table in
 * docs/gitops-controller.md and the editor's `$schema=` line in docs/files-and-plans.md. Each is parsed, not listed
 * here, so a flag added anywhere is held to the same rules.
 */
const COMMAND_TABLE = { file: 'README.md', heading: '## Commands' };
const DAEMON_TABLE = { file: 'docs/gitops-controller.md', heading: '## The daemon' };
const EDITOR_SUPPORT = 'docs/files-and-plans.md';
const docs = new Map<string, string>();
const help = new Map<string, string>();

function doc(file: string): string {
  const text = docs.get(file);
  if (text === undefined) throw new Error(`${file} was not read`);
  return text;
}

async function helpText(path: readonly string[]): Promise<string> {
  let out = '';
  const stdout = new Writable({ write: (chunk, _encoding, done) => void ((out += String(chunk)), done()) });
  const io = { stdout, stderr: new Writable({ write: (_c, _e, done) => done() }), env: {}, cwd: process.cwd(), log: silentLogger(), signal: new AbortController().signal };
  await runCli(commands, [...path, '--help'], io);
  return out;
}

beforeAll(async () => {
  for (const file of [COMMAND_TABLE.file, DAEMON_TABLE.file, EDITOR_SUPPORT]) docs.set(file, await readFile(new URL(`../../${file}`, import.meta.url), 'utf8'));
  for (const command of commands) help.set(command.path.join(' '), await helpText(command.path));
});

function flagsOf(path: string): Map<string, HelpFlag> {
  const text = help.get(path);
  if (text === undefined) throw new Error(`the README names 'dashcd ${path}', which is not a command`);
  return helpFlags(text);
}

/** `--no-x` is how a boolean `--x` that defaults on is turned off (parse-args). */
function lookup(flags: Map<string, HelpFlag>, flag: string): HelpFlag | undefined {
  return flags.get(flag) ?? flags.get(flag.replace(/^--no-/, '--'));
}

/** One line per disagreement, so a failure lists everything to fix at once. */
function commandTableProblems(): string[] {
  const problems: string[] = [];
  const rows = tableAfter(doc(COMMAND_TABLE.file), COMMAND_TABLE.heading, 'Command');
  const documented = new Set<string>();
  for (const [usageCell = '', , exampleCell = ''] of rows) {
    const usage = usageCell.replace(/`/g, '');
    for (const path of usagePaths(usage).map((p) => p.join(' '))) {
      documented.add(path);
      if (!help.has(path)) {
        problems.push(`README command table: 'dashcd ${path}' is not a command`);
        continue;
      }
      const flags = flagsOf(path);
      for (const { flag, value } of mentionedFlags(usage)) {
        const spec = lookup(flags, flag);
        if (!spec) problems.push(`README command table: 'dashcd ${path}' has no flag ${flag} (see 'dashcd ${path} --help')`);
        else if (isStatedDefault(value) && spec.default !== value) {
          problems.push(`README command table: 'dashcd ${path} ${flag} ${value}' states a default, --help says ${spec.default === undefined ? 'none' : `'${spec.default}'`}`);
        }
      }
    }
    for (const example of exampleCell.match(/`dashcd [^`]+`/g) ?? []) {
      const text = example.replace(/`/g, '');
      const [path] = usagePaths(text);
      const command = path ? path.join(' ') : '';
      if (!help.has(command)) continue;
      for (const { flag } of mentionedFlags(text)) {
        if (!lookup(flagsOf(command), flag)) problems.push(`README example '${text}': 'dashcd ${command}' has no flag ${flag}`);
      }
    }
  }
  for (const path of help.keys()) if (!documented.has(path)) problems.push(`README command table has no row for 'dashcd ${path}'`);
  return problems;
}

function daemonTableProblems(): string[] {
  const problems: string[] = [];
  const flags = flagsOf('daemon');
  const documented = new Set<string>();
  for (const [flagCell = '', defaultCell = ''] of tableAfter(doc(DAEMON_TABLE.file), DAEMON_TABLE.heading, 'Flag')) {
    const named = [...flagCell.matchAll(/`(--[a-z][a-z0-9-]*)`/g)].map((m) => m[1] as string);
    // `--prune`, `--max-delete` | off, `5`: one default per flag, in order.
    const defaults = named.length > 1 ? defaultCell.split(/,\s*/) : [defaultCell];
    for (const [i, flag] of named.entries()) {
      const spec = lookup(flags, flag);
      if (!spec) {
        problems.push(`${DAEMON_TABLE.file} daemon table: daemon has no flag ${flag}`);
        continue;
      }
      documented.add(flags.has(flag) ? flag : flag.replace(/^--no-/, '--'));
      const stated = /^`([^`]+)`$/.exec(defaults[i] ?? '')?.[1];
      // A default in help that is one token (not prose such as "dashboards/ next to dashcd.yaml…") must be stated.
      const plain = spec.valueName !== undefined && spec.default !== undefined && !/\s/.test(spec.default) ? spec.default : undefined;
      if ((stated !== undefined || plain !== undefined) && stated !== plain && spec.valueName !== undefined) {
        problems.push(`${DAEMON_TABLE.file} daemon table: ${flag} default ${stated === undefined ? `'${defaults[i] ?? ''}'` : `\`${stated}\``}, --help says ${plain === undefined ? 'none' : `'${plain}'`}`);
      }
    }
  }
  for (const flag of flags.keys()) if (!documented.has(flag)) problems.push(`${DAEMON_TABLE.file} daemon table has no row for ${flag}`);
  return problems;
}

describe('--help and the docs agree', () => {
  it('every command has a row in the README command table, whose flags and stated defaults are those of its --help', () => {
    expect(commandTableProblems()).toEqual([]);
  });

  it("the README's exit-code table and the overview --help name every exit code the commands use", async () => {
    const rows = tableAfter(docs.get(COMMAND_TABLE.file) ?? '', '## Exit codes', 'Code');
    const documented = rows.flatMap((row) => [...(row[0] ?? '').matchAll(/\b\d+\b/g)].map((m) => Number(m[0])));
    for (const code of Object.values(ExitCode)) expect(documented, `exit ${code} in the README table`).toContain(code);
    const overview = await helpText([]);
    for (const code of Object.values(ExitCode)) expect(overview, `exit ${code} in dashcd --help`).toMatch(new RegExp(`\\b${code} [a-z]`));
  });

  it('the daemon table of docs/gitops-controller.md lists exactly the flags of daemon --help, with the same defaults', () => {
    expect(daemonTableProblems()).toEqual([]);
  });

  it('a flag several commands share takes the same kind of value everywhere', () => {
    const kinds = new Map<string, Map<string, string[]>>();
    for (const [path, text] of help) {
      for (const [flag, spec] of helpFlags(text)) {
        const byKind = kinds.get(flag) ?? new Map<string, string[]>();
        byKind.set(spec.valueName ?? '(boolean)', [...(byKind.get(spec.valueName ?? '(boolean)') ?? []), path]);
        kinds.set(flag, byKind);
      }
    }
    const mixed = [...kinds].filter(([, byKind]) => byKind.size > 1).map(([flag, byKind]) => `${flag}: ${[...byKind].map(([kind, paths]) => `<${kind}> in ${paths.join(', ')}`).join('; ')}`);
    expect(mixed).toEqual([]);
  });

  it('every $schema= line a --help suggests is the one docs/files-and-plans.md shows', () => {
    const suggested = [...help.values()].flatMap((text) => [...text.matchAll(/\$schema=([^\s`]+)/g)].map((m) => m[1] as string));
    expect(suggested.length).toBeGreaterThan(0);
    expect(suggested.filter((path) => !doc(EDITOR_SUPPORT).includes(`$schema=${path}`))).toEqual([]);
  });

  it("every sample file an example names (README's table, each --help's examples) exists in this repository, so a newcomer can run it", async () => {
    const readme = doc(COMMAND_TABLE.file);
    const table = readme.slice(readme.indexOf(COMMAND_TABLE.heading), readme.indexOf('\n## ', readme.indexOf(COMMAND_TABLE.heading) + 1));
    const examples = [table, ...commands.flatMap((command) => command.examples)].join('\n');
    const named = [...new Set([...examples.matchAll(/(?<![\w/.-])dashboards\/[\w./-]+\.ya?ml\b/g)].map((m) => m[0]))];
    expect(named.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const path of named) if (!(await readFile(new URL(`../../${path}`, import.meta.url)).then(() => true, () => false))) missing.push(path);
    expect(missing).toEqual([]);
  });
});
