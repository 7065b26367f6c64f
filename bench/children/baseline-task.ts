import { fetchAllPages } from '../baselines/fetch-pages.js';
import { naiveDocumentPlan, sequentialDocumentCreates } from '../baselines/naive-documents.js';
import { naivePlan, parseEachFile, sequentialPuts, type Endpoint } from '../baselines/naive-reconcile.js';

/**
 * Runs one baseline as its own process, the way the CLI figure it is compared with runs, so both pay node's
 * start-up alike. argv: <task> <json args>; prints one JSON line with the task's counts.
 */
interface TaskArgs {
  dir?: string;
  endpoint?: Endpoint;
  query?: string;
}

function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`baseline task needs ${name}`);
  return value;
}

const TASKS: Record<string, (a: TaskArgs) => Promise<Record<string, number>>> = {
  'yaml-parse-each': (a) => parseEachFile(need(a.dir, 'dir')),
  'naive-plan': (a) => naivePlan(need(a.dir, 'dir'), need(a.endpoint, 'endpoint')),
  'sequential-put': (a) => sequentialPuts(need(a.dir, 'dir'), need(a.endpoint, 'endpoint')),
  'naive-document-plan': (a) => naiveDocumentPlan(need(a.dir, 'dir'), need(a.endpoint, 'endpoint')),
  'sequential-document-create': (a) => sequentialDocumentCreates(need(a.dir, 'dir'), need(a.endpoint, 'endpoint')),
  'fetch-pages': (a) => fetchAllPages(need(a.endpoint, 'endpoint'), need(a.query, 'query')),
};

async function main(): Promise<void> {
  const [name = '', raw = '{}'] = process.argv.slice(2);
  const task = TASKS[name];
  if (!task) throw new Error(`unknown baseline task ${name}; known: ${Object.keys(TASKS).join(', ')}`);
  process.stdout.write(`${JSON.stringify(await task(JSON.parse(raw) as TaskArgs))}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
