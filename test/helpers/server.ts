import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, type Logger } from '../../src/lib/logger.js';
import type { Scope } from '../../src/schema/scopes.js';
import { DEFAULT_ENVIRONMENT, type EnvironmentId } from '../../src/schema/ids.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/create-server.js';

export interface TestServer {
  /** Environment root of `local`, e.g. `http://127.0.0.1:PORT/e/local`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`. */
  readonly baseUrl: string;
  /** A stored token of `local` with the requested scopes. */
  readonly token: string;
  readonly dataDir: string;
  readonly server: RunningServer;
  /** Another token of `env` (default `local`) with exactly these scopes (may be none), in memory only. */
  tokenFor(scopes: Scope[], env?: EnvironmentId): string;
  /** Closes the server and deletes the data dir. */
  close(): Promise<void>;
}

export interface TestServerOptions extends Partial<Omit<ServerOptions, 'dataDir'>> {
  readonly scopes?: Scope[];
  readonly dataDir?: string;
  /** Keep the data dir after close (e.g. to restart on it). */
  readonly keepDataDir?: boolean;
}

/** Starts the real server on 127.0.0.1:0 over a fresh temp data dir, with a token of the given scopes. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { scopes = ['ReadConfig', 'WriteConfig'], keepDataDir = false, ...rest } = options;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'dashcd-server-')));
  const log: Logger = options.log ?? silentLogger();
  const server = await startServer({ ...rest, dataDir, log, host: '127.0.0.1', port: 0 });
  const tokensOf = (env: EnvironmentId) => {
    const environment = server.environments.get(env);
    if (!environment) throw new Error(`environment ${env} is not open`);
    return environment.tokens;
  };
  const { token } = await tokensOf(DEFAULT_ENVIRONMENT).create({ name: 'test', scopes });
  return {
    url: server.envUrl(DEFAULT_ENVIRONMENT),
    baseUrl: server.url,
    token,
    dataDir,
    server,
    tokenFor: (tokenScopes, env = DEFAULT_ENVIRONMENT) => tokensOf(env).addEphemeral(tokenScopes, 'test-extra'),
    async close() {
      await server.close();
      if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
