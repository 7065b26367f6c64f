import { afterEach } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/client/api-client.js';
import { startFaultServer, type FaultServer, type FaultServerOptions } from './fault-server.js';

export interface FaultClient {
  server: FaultServer;
  client: ApiClient;
  /** The client's base URL: the fault server's `/e/local`. */
  base: string;
}

/**
 * Registers its own afterEach, so call it once at the top level of a test file. Returns `start`: a fault server and
 * an API client aimed at its `/e/local`; every pair started in a test is closed after it.
 */
export function faultClientPerTest(): (server: FaultServerOptions, client: Omit<ApiClientOptions, 'baseUrl'>) => Promise<FaultClient> {
  const open: FaultClient[] = [];
  afterEach(async () => {
    for (const { client, server } of open.splice(0)) {
      await client.close();
      await server.close();
    }
  });
  return async (serverOptions, clientOptions) => {
    const server = await startFaultServer(serverOptions);
    const base = `${server.url}/e/local`;
    const started = { server, client: createApiClient({ baseUrl: base, ...clientOptions }), base };
    open.push(started);
    return started;
  };
}
