import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Which top-level modules each module may import (besides itself); the architecture's dependency rule. */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  schema: [],
  config: ['schema', 'lib', 'plan', 'environments'],
  environments: ['desired', 'source', 'schema', 'lib'],
  desired: ['schema', 'lib'],
  source: ['schema', 'lib'],
  plan: ['schema', 'lib', 'desired'],
  client: ['schema', 'lib'],
  server: ['schema', 'lib'],
  archive: ['client', 'schema', 'lib'],
  apply: ['plan', 'client', 'schema', 'lib'],
  pull: ['plan', 'client', 'desired', 'schema', 'lib'],
  reconcile: ['environments', 'plan', 'client', 'desired', 'config', 'apply', 'schema', 'lib'],
  daemon: ['console', 'environments', 'source', 'reconcile', 'apply', 'plan', 'client', 'desired', 'config', 'archive', 'server', 'schema', 'lib'],
  cli: ['preview', 'console', 'environments', 'source', 'daemon', 'reconcile', 'apply', 'pull', 'plan', 'client', 'desired', 'config', 'archive', 'server', 'schema', 'lib'],
  // The read-only web console: pure pictures (preview) and plan values in, pages and JSON out; it never writes.
  preview: ['plan', 'schema', 'lib'],
  console: ['preview', 'plan', 'schema', 'lib'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

function topModule(file: string): string {
  return relative(SRC, file).split(/[\\/]/)[0] ?? '';
}

describe('import direction', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = topModule(file);
    if (!(from in ALLOWED)) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = topModule(resolve(dirname(file), match[1] ?? ''));
      if (target !== from && !ALLOWED[from]?.includes(target)) violations.push(`${relative(SRC, file)} imports ${target} (${match[1]})`);
    }
  }

  it('keeps every module within its allowed dependencies (server never imports client, plan or apply; nothing imports cli)', () => {
    expect(violations).toEqual([]);
  });

  it('knows every top-level module', () => {
    const modules = new Set(sourceFiles(SRC).map(topModule).filter((m) => !m.endsWith('.ts')));
    expect([...modules].filter((m) => !(m in ALLOWED))).toEqual([]);
  });
});
