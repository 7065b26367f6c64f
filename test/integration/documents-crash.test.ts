import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentForm } from '../helpers/documents.js';
import { folderBytes } from '../helpers/folder-bytes.js';
import { runDashcd } from '../helpers/cli.js';
import { killTestScope, startServeChild, type ServeChild } from '../helpers/serve-child.js';

const IDS = Array.from({ length: 24 }, (_, i) => `crash-doc-${i}`);
const WRITERS = 12;
const ROUNDS = 2;
const SCOPES = 'document:documents:read,document:documents:write,document:documents:delete';

/** Version `v` of a document's content: every third one 256 kB, so content files are written while records are journalled. */
function contentOf(id: string, v: number): Buffer {
  return Buffer.from(JSON.stringify({ id, v, pad: 'x'.repeat(v % 3 === 0 ? 256 * 1024 : 512) }));
}

async function journalBytes(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'env', 'local', 'documents', 'journal');
  return folderBytes(dir);
}

/** `dashcd token create` on the data dir, in this process (the real command, as main.ts runs it): set-up, not under test. */
async function platformToken(dataDir: string): Promise<string> {
  const result = await runDashcd(['token', 'create', '--data', dataDir, '--scopes', SCOPES, '--name', 'crash'], { cwd: dataDir });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').at(-1) ?? '';
}

describe('the Document service of `dashcd serve` under SIGKILL during a burst of document writes', () => {
  const scope = killTestScope('dashcd-documents-crash-');

  it(`keeps every acknowledged create and content write across ${ROUNDS} kills, and no content file nobody refers to`, async () => {
    await scope.replayable(rounds);
  });

  async function rounds(): Promise<void> {
    const { dataDir } = await scope.dataDirWithToken();
    const token = await platformToken(dataDir);
    const headers = { authorization: `Bearer ${token}` };
    /** Per id: the last acknowledged version (0: no acknowledged create) and the highest one sent. */
    const acked = new Map<string, number>(IDS.map((id) => [id, 0]));
    const sent = new Map<string, number>(IDS.map((id) => [id, 0]));

    const verify = async (child: ServeChild): Promise<Map<string, number>> => {
      const stored = new Map<string, number>();
      const base = `${child.url}/platform/document/v1/documents`;
      for (const id of IDS) {
        const meta = await fetch(`${base}/${id}/metadata`, { headers });
        if (meta.status === 404) {
          expect(acked.get(id), `${id}: an acknowledged create was lost`).toBe(0);
          stored.set(id, 0);
          continue;
        }
        expect(meta.status).toBe(200);
        const { version } = (await meta.json()) as { version: number };
        expect(version, `${id}: stored v${version}, acknowledged v${acked.get(id)}`).toBeGreaterThanOrEqual(acked.get(id) ?? 0);
        expect(version).toBeLessThanOrEqual(sent.get(id) ?? 0);
        const content = await fetch(`${base}/${id}/content`, { headers });
        expect(Buffer.from(await content.arrayBuffer()).equals(contentOf(id, version)), `${id} v${version}: content differs from what was sent`).toBe(true);
        stored.set(id, version);
      }
      // The start-up sweep left exactly one content file per document.
      const files = await readdir(join(dataDir, 'env', 'local', 'documents', 'content'));
      expect(files).toHaveLength([...stored.values()].filter((v) => v > 0).length);
      return stored;
    };

    const write = async (child: ServeChild, id: string, current: number): Promise<Response | undefined> => {
      const v = current + 1;
      sent.set(id, Math.max(sent.get(id) ?? 0, v));
      const base = `${child.url}/platform/document/v1/documents`;
      const content = { bytes: contentOf(id, v), contentType: 'application/json' };
      const form = current === 0 ? documentForm({ name: id, type: 'dashboard', id, content }) : documentForm({ content });
      const url = current === 0 ? base : `${base}/${id}/content?optimistic-locking-version=${current}`;
      return fetch(url, { method: current === 0 ? 'POST' : 'PUT', headers: { ...headers, 'content-type': form.contentType }, body: form.body }).catch(() => undefined);
    };

    let journalSeenNonEmpty = false;
    for (let round = 0; round < ROUNDS; round++) {
      const child = await startServeChild(dataDir, token);
      const versions = await verify(child);
      let killed = false;
      let ackedThisRound = 0;
      let reached = () => {};
      const enough = new Promise<void>((resolve) => (reached = resolve));
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const mine = IDS.filter((_, i) => i % WRITERS === w);
        for (let k = 0; !killed; k++) {
          const id = mine[k % mine.length] as string;
          const current = versions.get(id) ?? 0;
          const response = await write(child, id, current);
          if (!response) return;
          expect([200, 201], await response.clone().text()).toContain(response.status);
          versions.set(id, current + 1);
          acked.set(id, current + 1);
          if (++ackedThisRound >= IDS.length * 3) reached();
        }
      });
      await enough;
      await new Promise((resolve) => setTimeout(resolve, scope.random() * 100));
      killed = true;
      child.process.kill('SIGKILL');
      await Promise.all([...writers, new Promise((resolve) => child.process.once('exit', resolve))]);
      journalSeenNonEmpty ||= (await journalBytes(dataDir)) > 0;
    }
    const last = await startServeChild(dataDir, token);
    const final = await verify(last);
    last.process.kill('SIGKILL');
    expect([...final.values()].every((v) => v > 0)).toBe(true);
    // The kills found acknowledged writes still only in the journal: the replay path was exercised.
    expect(journalSeenNonEmpty).toBe(true);
  }
});
