import { readFile } from 'node:fs/promises';
import jsonPatch from 'fast-json-patch';
import { parse, parseDocument } from 'yaml';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { splitDocumentFile } from '../../src/documents/document-file.js';
import type { Endpoint } from '../lib/seed.js';
import { yamlFiles } from './naive-reconcile.js';

/**
 * The document baselines: what a script with dashcd's documents client would do, one file and one request at a
 * time. `endpoint.token` is a platform token.
 */

interface DocumentFile {
  block: { kind: string; id: string; name: string; isPrivate?: boolean };
  content: Record<string, unknown>;
}

function documentFile(value: unknown): DocumentFile {
  const { block, content } = splitDocumentFile(value as Record<string, unknown>);
  return { block: block as DocumentFile['block'], content };
}

async function eachFile(dir: string, endpoint: Endpoint, visit: (documents: DocumentsClient, text: string) => Promise<void>): Promise<number> {
  const documents = createDocumentsClient({ platformUrl: endpoint.baseUrl, credential: { kind: 'platform-token', token: endpoint.token }, connections: 1 });
  const files = await yamlFiles(dir);
  try {
    for (const file of files) await visit(documents, await readFile(file, 'utf8'));
  } finally {
    await documents.close();
  }
  return files.length;
}

/** No-op plan baseline: parse each file with positions, GET its document (metadata and content), compare the JSON. */
export async function naiveDocumentPlan(dir: string, endpoint: Endpoint): Promise<Record<string, number>> {
  let differing = 0;
  const files = await eachFile(dir, endpoint, async (documents, text) => {
    const { block, content } = documentFile(parseDocument(text).toJS());
    const live = await documents.get(block.id);
    const same = live.metadata.name === block.name && jsonPatch.compare(JSON.parse(live.content.toString('utf8')) as object, content).length === 0;
    if (!same) differing++;
  });
  return { files, differing };
}

/** Apply baseline: parse each file and create its document, one POST at a time, no validation pass. */
export async function sequentialDocumentCreates(dir: string, endpoint: Endpoint): Promise<Record<string, number>> {
  const files = await eachFile(dir, endpoint, async (documents, text) => {
    const { block, content } = documentFile(parse(text));
    await documents.create({ id: block.id, name: block.name, type: block.kind, isPrivate: block.isPrivate ?? false, content: { bytes: JSON.stringify(content), contentType: 'application/json' } });
  });
  return { files };
}
