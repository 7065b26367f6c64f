import { serverNodeOptions } from '../../src/server/server-node-options.js';
import { forkChild } from './child.js';
import { readTreeMemory, type ProcMemory } from './tree-memory.js';
import type { FigureContext } from './figure.js';
import type { Endpoint } from './seed.js';

const SERVER_CHILD = new URL('../children/server-child.js', import.meta.url);

/** `dashcd-serve` is the CLI's `dashcd serve` (bench/lib/cli-server); the others are bench server children. */
export type ServerKind = 'dashcd' | 'dashcd-serve' | 'bare-get' | 'bare-events-log' | 'bare-put' | 'null-put' | 'naive-events' | 'bare-document-create';

export interface ServerUnderTest {
  kind: ServerKind;
  /** What the server was started on: its data dir, bytes file or JSONL. */
  arg: string;
  endpoint: Endpoint;
  origin: string;
  pid: number;
  /** Fork to listening, data loading included: the start-up figure. */
  startMs: number;
  memory(): ProcMemory;
  /** Resolves once the server has written everything it acknowledged to its final files. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a server in its own process and waits until it listens. Every kind runs with the Node options `dashcd serve`
 * gives itself, so a baseline never differs from dashcd in its runtime; dashcd also with the figure's node flags
 * (profiling).
 */
export async function startServerProcess(ctx: FigureContext, kind: ServerKind, arg: string): Promise<ServerUnderTest> {
  const child = await forkChild(SERVER_CHILD, [kind, arg], { execArgv: [...serverNodeOptions(), ...(kind === 'dashcd' ? ctx.execArgv : [])] });
  const url = String(child.ready['url']);
  const token = typeof child.ready['token'] === 'string' ? child.ready['token'] : '';
  return {
    kind,
    arg,
    endpoint: { baseUrl: url, token },
    origin: new URL(url).origin,
    pid: child.pid,
    startMs: child.readyMs,
    memory: () => readTreeMemory(child.pid),
    settled: () => child.settled(),
    stop: () => child.stop(),
  };
}

/** Runs `body` with the server up, and always stops it (a failed figure leaves no process behind). */
export async function withServer<T>(ctx: FigureContext, kind: ServerKind, arg: string, body: (server: ServerUnderTest) => Promise<T>): Promise<T> {
  const server = await startServerProcess(ctx, kind, arg);
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}
