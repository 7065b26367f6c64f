import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');

/**
 * The modules a command loads before its `run` starts: its static imports, followed through every module they
 * statically import (`import type` and dynamic `import()` are not loaded at start-up). Packages are kept by name.
 */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    const key = relative(SRC, file);
    if (seen.has(key)) return;
    seen.add(key);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)';/gms)) {
      const target = match[1] ?? '';
      if (target.startsWith('.')) visit(resolve(dirname(file), target.replace(/\.js$/, '.ts')));
      else seen.add(`package:${target.split('/')[0]}`);
    }
  };
  visit(resolve(SRC, entry));
  return seen;
}

describe('what validate loads at start-up', () => {
  // Start-up is a large part of a small validate: the HTTP client (undici alone costs ~120 ms to load), the server
  // code and the plan are loaded only for --remote or a project with environments, which need a target.
  const loaded = staticClosure('cli/commands/validate.ts');

  it('does not load the HTTP client, the server or the plan', () => {
    expect([...loaded].filter((m) => m === 'package:undici' || /^(client|server|reconcile|apply)\//.test(m) || m === 'plan/build-plan.ts')).toEqual([]);
  });

  it('loads the desired-state loader it needs (the walk follows imports)', () => {
    expect(loaded.has('desired/load-desired.ts')).toBe(true);
    expect(loaded.has('package:zod')).toBe(true);
  });
});

describe('what the entry point loads before it relaunches a server', () => {
  // `dashcd serve` started by a user relaunches itself with the server's Node options (relaunch.ts): everything the
  // launcher loaded first was paid twice. It decides from its arguments alone, before the CLI, the logger (pino) or
  // any command loads; all of those come through import() once a process is the one that runs the command.
  const loaded = staticClosure('main.ts');

  it('loads no command, no CLI, no logger and no server', () => {
    expect([...loaded].filter((m) => (m.startsWith('package:') && !m.startsWith('package:node:')) || m.startsWith('cli/commands/') || m === 'cli/run.ts' || m === 'lib/logger.ts' || m.startsWith('server/') && m !== 'server/server-node-options.ts' || m.startsWith('console/'))).toEqual([]);
  });

  it('loads the relauncher and the Node options it relaunches with (the walk follows imports)', () => {
    expect(loaded.has('cli/relaunch.ts')).toBe(true);
    expect(loaded.has('server/server-node-options.ts')).toBe(true);
  });
});

describe('what serve loads once it runs', () => {
  const loaded = staticClosure('cli/commands/serve.ts');

  it('leaves the server, its body pool and the console to import() after its flags are read', () => {
    expect([...loaded].filter((m) => m === 'server/create-server.ts' || m === 'server/routes/dashboard-body-pool.ts' || m.startsWith('console/'))).toEqual([]);
  });
});
