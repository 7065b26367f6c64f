import { createApiClient, type ApiClient } from '../../src/client/api-client.js';
import { startFaultServer, type FaultServer } from './fault-server.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The embedded test server behind a recording proxy: the CLI talks to `proxy` (so tests can count and script its
 * requests), the test checks the result with `api`, straight to the server.
 */
export interface ProxiedTarget {
  readonly server: TestServer;
  readonly proxy: FaultServer;
  readonly api: ApiClient;
  /** DT_ENV_URL (through the proxy) and DT_API_TOKEN for a CLI run. */
  readonly env: { DT_ENV_URL: string; DT_API_TOKEN: string };
  close(): Promise<void>;
}

export async function startProxiedTarget(): Promise<ProxiedTarget> {
  const server = await startTestServer();
  const proxy = await startFaultServer({ upstream: server.baseUrl });
  const api = createApiClient({ baseUrl: server.url, token: server.token });
  return {
    server,
    proxy,
    api,
    env: { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token },
    async close() {
      await api.close();
      await proxy.close();
      await server.close();
    },
  };
}

type Closeable = { close(): Promise<unknown> } | { cleanup(): Promise<unknown> } | { stop(): Promise<unknown> };

/**
 * Closes what a test opened, in the order given (callers list the last opened first); a slot the test did not use
 * is `undefined` and skipped.
 */
export async function closeAll(...resources: (Closeable | undefined)[]): Promise<void> {
  for (const r of resources) {
    if (r === undefined) continue;
    if ('stop' in r) await r.stop();
    else if ('cleanup' in r) await r.cleanup();
    else await r.close();
  }
}
