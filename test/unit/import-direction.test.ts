import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** A relative import, re-export or dynamic import, `import type` included: the module it names. */
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

/** Which top-level modules each module may import (besides itself); the architecture's dependency rule. */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  schema: [],
  config: ['schema', 'lib', 'plan', 'environments', 'desired'],
  environments: ['desired', 'source', 'schema', 'lib'],
  desired: ['schema', 'lib'],
  source: ['schema', 'lib'],
  plan: ['schema', 'lib', 'desired'],
  client: ['schema', 'lib'],
  server: ['schema', 'lib'],
  archive: ['client', 'schema', 'lib'],
  apply: ['plan', 'client', 'schema', 'lib'],
  pull: ['dashboards', 'documents', 'plan', 'client', 'desired', 'schema', 'lib'],
  // Classic dashboards' own rules (their compared form, what the service fills in, the ownership tag), beside
  // documents/ for platform dashboards and notebooks: plan/ itself knows no kind.
  dashboards: ['plan', 'schema', 'lib'],
  // Platform dashboards and notebooks as files (issue 35): pure file form, kind detection, checks, compared form, ids.
  documents: ['desired', 'plan', 'schema', 'lib'],
  // A kind of document (kinds/kind.ts) names what each stage does for it; the pipeline above asks the kind.
  kinds: ['preview', 'dashboards', 'documents', 'plan', 'client', 'desired', 'schema', 'lib'],
  reconcile: ['kinds', 'environments', 'plan', 'client', 'desired', 'config', 'apply', 'schema', 'lib'],
  daemon: ['kinds', 'console', 'environments', 'source', 'reconcile', 'apply', 'plan', 'client', 'desired', 'config', 'archive', 'server', 'schema', 'lib'],
  cli: ['kinds', 'preview', 'console', 'environments', 'source', 'daemon', 'reconcile', 'apply', 'pull', 'plan', 'client', 'desired', 'config', 'archive', 'server', 'schema', 'lib'],
  // The read-only web console: pure pictures (preview) and plan values in, pages and JSON out; it never writes.
  preview: ['dashboards', 'documents', 'plan', 'schema', 'lib'],
  console: ['preview', 'plan', 'schema', 'lib'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Each source file's relative imports (type imports and re-exports included), as absolute .ts paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((match) => resolve(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts')));
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The import cycles of `graph`, one per strongly connected component of more than one file (Tarjan), each as a
 * path of files from one file back to it: `a.ts → b.ts → a.ts`.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = top === file ? undefined : stack.pop()) {
      onStack.delete(top);
      component.push(top);
    }
    if (component.length > 1) components.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components.map((component) => cyclePath(graph, new Set(component)).map((file) => relative(SRC, file)).join(' → '));
}

/** A shortest path within `component` from its first file by name back to it (breadth first). */
function cyclePath(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const [start = ''] = [...component].sort();
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i] ?? '';
    for (const next of graph.get(file) ?? []) {
      if (!component.has(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      if (next === start) {
        const path = [start];
        for (let at = cameFrom.get(start) ?? start; at !== start; at = cameFrom.get(at) ?? start) path.unshift(at);
        return [start, ...path];
      }
      queue.push(next);
    }
  }
  return [...component];
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
    for (const match of text.matchAll(IMPORT)) {
      const target = topModule(resolve(dirname(file), match[1] ?? ''));
      if (target !== from && !ALLOWED[from]?.includes(target)) violations.push(`${relative(SRC, file)} imports ${target} (${match[1]})`);
    }
  }

  it('keeps every module within its allowed dependencies (server never imports client, plan or apply; nothing imports cli)', () => {
    expect(violations).toEqual([]);
  });

  it('has no import cycle between files, type imports included (a cycle is a type declared in the wrong file)', () => {
    expect(importCycles(importGraph())).toEqual([]);
  });

  it('names the files of a cycle, in import order', () => {
    const [a, b, c, d] = ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((name) => join(SRC, name));
    const graph = new Map([[a ?? '', [b ?? '']], [b ?? '', [c ?? '', d ?? '']], [c ?? '', [a ?? '']], [d ?? '', []]]);
    expect(importCycles(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
    expect(importCycles(new Map([[a ?? '', [b ?? '']], [b ?? '', []]]))).toEqual([]);
  });

  it('knows every top-level module', () => {
    const modules = new Set(sourceFiles(SRC).map(topModule).filter((m) => !m.endsWith('.ts')));
    expect([...modules].filter((m) => !(m in ALLOWED))).toEqual([]);
  });
});
