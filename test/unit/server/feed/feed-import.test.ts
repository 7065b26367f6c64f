import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsImportCommand } from '../../../../src/cli/commands/events-import.js';
import { ExitCode } from '../../../../src/cli/exit-codes.js';
import { EnvironmentId } from '../../../../src/schema/ids.js';
import { dataDirLayout } from '../../../../src/server/data-dir.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { importEvents } from '../../../../src/server/feed/importer.js';
import { runDashcd } from '../../../helpers/cli.js';
import { CORPUS_DIR } from '../../../helpers/corpus.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { MAX_DOCUMENT_BYTES } from '../../../../src/server/feed/event-document.js';
import { startTestServer } from '../../../helpers/server.js';

const T0 = 1_654_148_872_269;
const line = (fields: Record<string, unknown>): string => JSON.stringify(fields);
const base = { eventType: 'CUSTOM_DEPLOYMENT', entityId: 'SERVICE-1', startTime: T0 };

describe('events import', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'dashcd-import-'));
    file = join(root, 'events.jsonl');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('loads lines in order: a later line with the same id replaces the earlier one', async () => {
    await writeFile(file, [
      line({ ...base, id: `-4314211936928920170_${T0}`, eventType: 'ERROR_EVENT', eventStatus: 'OPEN' }),
      line({ ...base, id: `1_${T0 + 1}`, startTime: T0 + 1, endTime: T0 + 2 }),
      '',
      line({ ...base, id: `-4314211936928920170_${T0}`, eventType: 'ERROR_EVENT', eventStatus: 'CLOSED', endTime: T0 + 60_000 }),
    ].join('\n'));
    const dir = join(root, 'events');
    const outcome = await importEvents({ file, eventsDir: dir });
    expect(outcome).toEqual({ lines: 4, created: 2, replaced: 1, badLines: 0, storeSize: 2 });
    const store = await openEventStore({ dir });
    const text = (await store.get(`-4314211936928920170_${T0}`))?.toString();
    expect(text).toContain('"eventId":-4314211936928920170,');
    expect(text).toContain('"eventStatus":"CLOSED"');
    await store.close();
  });

  it('takes the id from the eventId digits as written when a line has no id', async () => {
    await writeFile(file, `{"eventId":-6388042533023614561,"startTime":${T0},"eventType":"CUSTOM_INFO"}\n`);
    const dir = join(root, 'events');
    await importEvents({ file, eventsDir: dir });
    const store = await openEventStore({ dir });
    expect((await store.get(`-6388042533023614561_${T0}`))?.toString()).toContain('"eventId":-6388042533023614561,');
    await store.close();
  });

  it('the command reports bad lines as FILE:LINE, imports the rest and exits 3', async () => {
    await writeFile(file, [
      line({ ...base, id: `1_${T0}` }),
      '{"id": broken',
      line({ ...base, id: `2_${T0 + 5}`, startTime: T0 + 5 }),
      line({ ...base, id: `3_${T0}`, endTime: T0 - 1 }),
    ].join('\n'));
    const result = await runDashcd(['events', 'import', '--data', 'data', '--env', 'prod', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(result.code).toBe(ExitCode.InvalidDesiredState);
    expect(result.stderr).toContain(`${file}:2: not JSON`);
    expect(result.stderr).toContain(`${file}:4: endTime`);
    expect(result.stdout).toContain('2 new, 0 replaced, 2 skipped; the store holds 2 events');
    const store = await openEventStore({ dir: dataDirLayout(join(root, 'data')).eventsDir(EnvironmentId.parse('prod')) });
    expect(store.size).toBe(2);
    await store.close();
    expect(existsSync(join(root, 'data', 'owner.json'))).toBe(false);
  });

  it('refuses to import while a server owns the data dir, naming it', async () => {
    await writeFile(file, line({ ...base, id: `1_${T0}` }));
    const server = await startTestServer({ dataDir: join(root, 'data'), keepDataDir: true });
    try {
      const result = await runDashcd(['events', 'import', '--data', 'data', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
      expect(result.code).toBe(ExitCode.TargetUnavailable);
      expect(result.stderr).toContain(`is in use by dashcd pid ${process.pid} serving ${server.baseUrl}: stop that server`);
    } finally {
      await server.close();
    }
    expect(existsSync(join(root, 'data', 'owner.json'))).toBe(false);
  });

  it('is a usage error without a readable file or with a bad environment id', async () => {
    const missing = await runDashcd(['events', 'import', 'nope.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(missing.code).toBe(ExitCode.Usage);
    expect(missing.stderr).toContain('is not a readable file');
    await writeFile(file, '');
    const badEnv = await runDashcd(['events', 'import', '--env', '../x', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(badEnv.code).toBe(ExitCode.Usage);
  });

  it('refuses an environment one edit from one dashcd.yaml declares, creating nothing (it made a new environment, exit 0)', async () => {
    await writeFile(file, `${line({ ...base, id: `1_${T0}` })}\n`);
    await writeFile(join(root, 'dashcd.yaml'), 'environments:\n  dev: {}\n  staging: {}\n');
    const typo = await runDashcd(['events', 'import', '--data', 'data', '--env', 'stagin', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(typo.code).toBe(ExitCode.Usage);
    expect(typo.stderr).toBe('dashcd events import: unknown environment stagin — did you mean staging? (dashcd.yaml here declares dev, staging)\n');
    expect(existsSync(join(root, 'data', 'env', 'stagin'))).toBe(false);
    // Its output is its summary: the store's own lines (opened, from a snapshot) are not logged at info.
    const logged = captureLog('info');
    const right = await runDashcd(['events', 'import', '--data', 'data', '--env', 'staging', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand], log: logged.log, env: {} });
    expect(right.code, right.stderr).toBe(ExitCode.Success);
    expect(logged.lines).toEqual([]);
  });

  describe('of an events API answer', () => {
    const runImport = (name: string): ReturnType<typeof runDashcd> =>
      runDashcd(['events', 'import', '--data', 'data', name], { cwd: root, commands: [eventsImportCommand] });
    const storedText = async (id: string): Promise<string | undefined> => {
      const store = await openEventStore({ dir: dataDirLayout(join(root, 'data')).eventsDir(EnvironmentId.parse('local')) });
      try {
        return (await store.get(id))?.toString();
      } finally {
        await store.close();
      }
    };

    it('imports each element of the events array of a pretty-printed answer, as the API documents it', async () => {
      // Both events of the spec's example share one id: the second replaces the first, as a later line would.
      await copyFile(join(CORPUS_DIR, 'events', 'dt-openapi-env-v1-1.254__EventQueryResult-example.json'), join(root, 'answer.json'));
      const result = await runImport('answer.json');
      expect(result).toMatchObject({ code: ExitCode.Success, stderr: '' });
      expect(result.stdout).toContain(': 1 new, 1 replaced, 0 skipped; the store holds 1 event');
      expect(await storedText('5915682011263205071_1521042929000')).toContain('"eventType":"SLOW_DISK"');
    });

    it('reads a one-line answer too, keeps eventId digits as written, and names a bad element as FILE: events[N]', async () => {
      const answer = `{"totalEventCount":3,"events":[{"eventId":-6388042533023614561,"startTime":${T0},"eventType":"CUSTOM_INFO"},` +
        `{"id":"2_${T0}","startTime":${T0 + 1},"eventType":"CUSTOM_INFO"},${line({ ...base, id: `3_${T0}` })}],"nextCursor":null}\n`;
      await writeFile(join(root, 'answer.json'), answer);
      const result = await runImport('answer.json');
      expect(result.code).toBe(ExitCode.InvalidDesiredState);
      expect(result.stderr).toBe(`${join(root, 'answer.json')}: events[1]: id: ends in _${T0} but startTime is ${T0 + 1}\n`);
      expect(result.stdout).toContain(': 2 new, 0 replaced, 1 skipped');
      expect(await storedText(`-6388042533023614561_${T0}`)).toContain('"eventId":-6388042533023614561,');
    });

    it('reads on past a one-line answer whose text holds invalid UTF-8 (its decoded length hid the line after it)', async () => {
      const first = Buffer.concat([Buffer.from('{"events":[{"a":"'), Buffer.alloc(10, 0xff), Buffer.from('"}]}\n')]);
      await writeFile(join(root, 'bytes.json'), Buffer.concat([first, Buffer.from('{"x":1}\n')]));
      const result = await runImport('bytes.json');
      expect(result.stdout).toContain(': 0 new, 0 replaced, 2 skipped');
      expect(result.stderr).toContain('bytes.json:2: ');
    });

    it('takes a one-line answer followed by another for JSONL, not for the first answer alone (its events were dropped)', async () => {
      const page = (id: number) => `{"events":[${line({ ...base, id: `${id}_${T0}` })}]}`;
      await writeFile(join(root, 'pages.json'), `${page(1)}\n${page(2)}\n`);
      const result = await runImport('pages.json');
      expect(result.code).toBe(ExitCode.InvalidDesiredState);
      expect(result.stdout).toContain(': 0 new, 0 replaced, 2 skipped');
    });

    it('reads a file that is the events array alone (jq .events of an answer)', async () => {
      await writeFile(join(root, 'events.json'), `[\n  ${line({ ...base, id: `7_${T0}` })},\n  ${line({ ...base, id: `8_${T0}` })}\n]\n`);
      const result = await runImport('events.json');
      expect(result.code, result.stderr).toBe(ExitCode.Success);
      expect(result.stdout).toContain(': 2 new, 0 replaced, 0 skipped');
      // A bad item is named by its place in the file's own array, which has no `events` member.
      await writeFile(join(root, 'bad.json'), `[\n  ${line({ ...base, id: `7_${T0}` })},\n  {"eventType": "CUSTOM_INFO"}\n]\n`);
      expect((await runImport('bad.json')).stderr).toMatch(/bad\.json: \[1\]: /);
    });

    it(`reads an answer whole up to ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB only (64 MiB of tiny items took 2.6 GB); a larger document is refused whole, a larger JSONL file read by line`, async () => {
      const padded = (bytes: number): string => {
        const head = '{\n  "events": [],\n  "pad": "';
        const tail = '"\n}\n';
        return `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}`;
      };
      await writeFile(join(root, 'at-limit.json'), padded(MAX_DOCUMENT_BYTES));
      const atLimit = await runImport('at-limit.json');
      expect(atLimit.code, atLimit.stderr).toBe(ExitCode.Success);
      // Past it, a document is refused whole, saying why and how to import it (each line was reported as a bad event).
      const pastLimit = async (name: string, text: string): Promise<Awaited<ReturnType<typeof runImport>>> => {
        await writeFile(join(root, name), text);
        const past = await runImport(name);
        expect(past.code, name).toBe(ExitCode.InvalidDesiredState);
        expect(past.stdout, name).toBe('');
        return past;
      };
      const pretty = await pastLimit('past-limit.json', padded(MAX_DOCUMENT_BYTES + 1));
      expect(pretty.stderr).toBe(
        // In bytes: "16.0 MiB … only up to 16 MiB" read as if it were within the limit.
        `dashcd events import: ${join(root, 'past-limit.json')} is ${MAX_DOCUMENT_BYTES + 1} bytes and one JSON document: an events answer or array is read whole only up to ${MAX_DOCUMENT_BYTES} bytes (16 MiB); ` +
          "write its events one per line first (jq -c '.events[]' of an answer, jq -c '.[]' of an array) and import that\n",
      );
      const oneLine = await pastLimit('one-line.json', padded(MAX_DOCUMENT_BYTES + 1).replaceAll('\n', ' '));
      expect(oneLine.stderr).toContain('one JSON document');
      const array = await pastLimit('array.json', `[${'1,'.repeat(MAX_DOCUMENT_BYTES / 2)}1]`);
      expect(array.stderr).toContain('one JSON document');
      // A first line that starts an answer without closing it, however it ends: each of these imported nothing and said
      // only that its lines were not events.
      const item = `  ${line({ ...base, id: `3_${T0}` })},\n`;
      const answerLines = (head: string): string => `${head}\n${item.repeat(Math.ceil(MAX_DOCUMENT_BYTES / item.length))}  ${line({ ...base, id: `4_${T0}` })}\n]}\n`;
      for (const [name, head] of [
        ['opened.json', '{"totalCount": 0, "events": ['],
        ['first-event-on-head.json', `{"totalCount": 2, "events": [${line({ ...base, id: `5_${T0}` })},`],
        ['count-alone.json', '{"totalCount": 2,\n"events": ['],
      ]) {
        expect((await pastLimit(name as string, answerLines(head as string))).stderr, name).toContain('one JSON document');
      }
      // JSONL of that size is imported line by line as ever: its first line is an event.
      const event = line({ ...base, id: `1_${T0}` });
      // Padded with long blank lines: 16 MiB of empty ones took 17 s to read, one by one.
      await writeFile(join(root, 'big.jsonl'), `${event}\n${`${' '.repeat(65_535)}\n`.repeat(MAX_DOCUMENT_BYTES / 65_536)}\n`);
      const jsonl = await runImport('big.jsonl');
      expect(jsonl.code, jsonl.stderr).toBe(ExitCode.Success);
      expect(jsonl.stdout).toContain(': 1 new, 0 replaced, 0 skipped');
      // Even when its first line is longer than any event may be: that line is reported, the rest imported (the whole
      // file was refused as a document).
      await writeFile(join(root, 'long-first.jsonl'), `{"pad": "${'x'.repeat(MAX_DOCUMENT_BYTES)}"}\n${line({ ...base, id: `2_${T0}` })}\n`);
      const longFirst = await runImport('long-first.jsonl');
      expect(longFirst.stderr).not.toContain('one JSON document');
      expect(longFirst.stderr).toMatch(/long-first\.jsonl:1: /);
      expect(longFirst.stdout).toContain(': 1 new, 0 replaced, 1 skipped');
      // And when a hand edit broke its first line where an object opens: the whole events after it are what tells.
      await writeFile(join(root, 'broken-first.jsonl'), `{"eventType": {\n${line({ ...base, id: `6_${T0}` })}\n${`${' '.repeat(65_535)}\n`.repeat(MAX_DOCUMENT_BYTES / 65_536)}`);
      const brokenFirst = await runImport('broken-first.jsonl');
      expect(brokenFirst.stderr).not.toContain('one JSON document');
      expect(brokenFirst.stderr).toMatch(/broken-first\.jsonl:1: /);
      expect(brokenFirst.stdout).toContain(': 1 new, 0 replaced, 1 skipped');
    });

    it('reads one pretty-printed object that is not an answer as one record, not as lines (a push body made 26 "not JSON" lines)', async () => {
      await writeFile(join(root, 'event.json'), `${JSON.stringify({ ...JSON.parse(line({ ...base, id: `9_${T0}` })) as object }, null, 2)}\n`);
      const event = await runImport('event.json');
      expect(event.code, event.stderr).toBe(ExitCode.Success);
      expect(event.stdout).toContain(': 1 new, 0 replaced, 0 skipped');
      await writeFile(join(root, 'push.json'), `${JSON.stringify({ eventType: 'CUSTOM_INFO', title: 'deployed', entitySelector: 'type(HOST)' }, null, 2)}\n`);
      const push = await runImport('push.json');
      expect(push.code).toBe(ExitCode.InvalidDesiredState);
      expect(push.stderr.trim().split('\n')).toHaveLength(1);
      expect(push.stderr).toMatch(/push\.json:1: /);
    });

    it('counts the bad elements past the first 50 instead of listing them', async () => {
      const bad = Array.from({ length: 52 }, () => '{"eventType":"CUSTOM_INFO"}');
      await writeFile(join(root, 'answer.json'), `{\n  "events": [\n    ${bad.join(',\n    ')}\n  ]\n}\n`);
      const result = await runImport('answer.json');
      expect(result.stderr).toContain(': events[49]: ');
      expect(result.stderr).not.toContain(': events[50]: ');
      expect(result.stderr).toContain('… and 2 more bad events\n');
    });

    it('leaves JSONL as it was: a broken first line is FILE:1, not a reason to read the file as one document', async () => {
      await writeFile(file, ['{"id": broken', line({ ...base, id: `1_${T0}` }), ''].join('\n'));
      const result = await runImport('events.jsonl');
      expect(result.code).toBe(ExitCode.InvalidDesiredState);
      expect(result.stderr).toMatch(new RegExp(`^${file}:1: not JSON: [^\n]+\n$`));
      expect(result.stdout).toContain(': 1 new, 0 replaced, 1 skipped');
    });
  });
});
