import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { runDashcdOk, type CliRun } from '../lib/cli.js';
import type { FigureContext } from '../lib/figure.js';
import type { Endpoint } from '../lib/seed.js';
import { startServerProcess, type ServerUnderTest } from '../lib/servers.js';

/** How the reconciler reaches a server under test, and what a baseline task talks to (its endpoint and token). */
export interface Target {
  args: string[];
  env: Record<string, string>;
  endpoint: Endpoint;
}

/** The reconciler talks to the server under test as to any target: `--target` plus the token in the env. */
export function targetArgs(server: ServerUnderTest): { args: string[]; env: Record<string, string> } {
  return { args: ['--target', server.endpoint.baseUrl], env: { DT_API_TOKEN: server.endpoint.token } };
}

/** Starts a server process on a fresh data dir under the figure's work dir. */
export async function freshServer(ctx: FigureContext): Promise<ServerUnderTest> {
  return startServerProcess(ctx, 'dashcd', await mkdtemp(join(ctx.workDir, 'data-')));
}

const APPLIED = /(\d+) created, (\d+) updated, (\d+) unchanged, (\d+) deleted, (\d+) failed/;

/** `dashcd apply` of `dir` into `server`; the run must create exactly `expected` dashboards and fail none. */
export async function applyAll(ctx: FigureContext, target: Target, dir: string, expected: number, profile = true): Promise<CliRun> {
  const run = await runDashcdOk(['apply', '--dir', dir, ...target.args], { cwd: ctx.workDir, env: target.env, execArgv: profile ? ctx.execArgv : [] });
  const counts = APPLIED.exec(run.stdout);
  if (!counts || Number(counts[1]) !== expected || Number(counts[5]) !== 0) {
    throw new Error(`apply was expected to create ${expected} items: ${run.stdout.split('\n').slice(-3).join(' ')}`);
  }
  return run;
}

interface PlanSummary {
  create: number;
  update: number;
  unchanged: number;
  orphan: number;
}

/**
 * `dashcd plan` that must find nothing to do: exit 0 under --detailed-exitcode and every item unchanged. `cacheDir`:
 * with the check cache on, kept there (a run after one that filled it plans from it); without, every file is checked.
 */
export async function noOpPlan(ctx: FigureContext, target: Target, dir: string, expected: number, cacheDir?: string): Promise<CliRun> {
  const env = cacheDir === undefined ? target.env : { ...target.env, DASHCD_CACHE: 'on', XDG_CACHE_HOME: cacheDir };
  const run = await runDashcdOk(['plan', '--dir', dir, ...target.args, '--output', 'json', '--detailed-exitcode'], { cwd: ctx.workDir, env, execArgv: ctx.execArgv });
  const { summary } = JSON.parse(run.stdout) as { summary: PlanSummary };
  if (summary.unchanged !== expected || summary.create + summary.update + summary.orphan !== 0) {
    throw new Error(`plan after apply is not a no-op: ${JSON.stringify(summary)}`);
  }
  return run;
}
