import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BenchResults, FigureResult } from './report.js';
import { renderReport } from './report.js';

async function readPrevious(path: string): Promise<BenchResults | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as BenchResults;
  } catch {
    return undefined;
  }
}

/**
 * A run of some figures keeps the other figures of the previous file of the same mode (each carries its own
 * `takenAt`), so `npm run bench -- plan` refreshes one line of the table without erasing the rest.
 */
export async function mergeResults(path: string, current: BenchResults, order: readonly string[]): Promise<BenchResults> {
  const previous = await readPrevious(path);
  if (!previous || previous.mode !== current.mode) return current;
  const byName = new Map<string, FigureResult>(previous.figures.map((f) => [f.name, f]));
  for (const figure of current.figures) byName.set(figure.name, figure);
  const figures = order.flatMap((name) => byName.get(name) ?? []);
  return { ...current, figures };
}

/** Writes `<out>` (JSON) and the same name with `.md` (the printed table), each atomically. */
export async function writeResults(path: string, results: BenchResults): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const report = renderReport(results);
  const mdPath = path.replace(/\.json$/, '') + '.md';
  await writeFile(`${path}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
  await writeFile(`${mdPath}.tmp`, report);
  await rename(`${mdPath}.tmp`, mdPath);
  return report;
}
