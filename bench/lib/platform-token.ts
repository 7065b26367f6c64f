import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { PlatformScope } from '../../src/schema/scopes.js';
import { createCredential } from '../../src/server/auth/platform-credentials.js';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { platformCredentialsFile } from '../../src/server/documents/document-api.js';
import type { ServerUnderTest } from './servers.js';

/**
 * A platform token with every scope for a dashcd server process, made as `dashcd token create` makes one: written
 * to its data dir's credentials file, which the server reads at once.
 */
export async function platformToken(server: ServerUnderTest): Promise<string> {
  const file = platformCredentialsFile(dataDirLayout(server.arg), DEFAULT_ENVIRONMENT);
  const { secret } = await createCredential(file, { kind: 'platform-token', name: `bench-${Date.now()}`, scopes: [...PlatformScope.options] });
  return secret;
}
