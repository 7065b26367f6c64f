import { afterEach, beforeEach } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { createProject, runDashcd, type CliResult, type Project } from './cli.js';
import { startDocumentServer, type DocumentServer } from './documents.js';

/** A project beside an embedded server with its Document service, and the CLI and a client as one user of both. */
export interface DocumentsProject {
  server: DocumentServer;
  project: Project;
  /** The Document service as the app would use it: the same user as the CLI's platform token. */
  documents: DocumentsClient;
  /** `dashcd …` in the project, against the server (its classic API and its Document service). */
  run(...argv: string[]): Promise<CliResult>;
}

/** Registers a fresh one per test (beforeEach/afterEach at the top level of a test file); `files` are the project's. */
export function documentsProjectPerTest(files: Record<string, string>): () => DocumentsProject {
  let current: DocumentsProject | undefined;
  beforeEach(async () => {
    const server = await startDocumentServer();
    const project = await createProject(files);
    const platformToken = await server.platformToken();
    const documents = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: platformToken } });
    const env = { DT_ENV_URL: server.url, DT_API_TOKEN: server.token, DT_PLATFORM_URL: server.url, DT_PLATFORM_TOKEN: platformToken };
    current = { server, project, documents, run: (...argv) => runDashcd(argv, { cwd: project.root, env }) };
  });
  afterEach(async () => {
    await current?.documents.close();
    await current?.project.cleanup();
    await current?.server.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('documentsProjectPerTest: used outside a test');
    return current;
  };
}
