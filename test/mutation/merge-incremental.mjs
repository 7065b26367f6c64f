// Merges Stryker incremental files into the committed one (docs/testing.md, "Mutation testing"):
//   node test/mutation/merge-incremental.mjs reports/mutation/incremental/*.json
// Each source file keeps the results of the last input (in argument order, after the committed file) that mutated
// it. Test ids are numbers local to each run, so mutants refer to tests by test file and name while merging and get
// fresh ids at the end; a test file's source is the last input's. A reference to a test the last version of its file
// no longer has is dropped: Stryker then tests that mutant again, as it would after the test changed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const COMMITTED = 'test/mutation/incremental.json';

/** @param {object[]} reports incremental files, oldest first @returns {object} one incremental file */
export function mergeIncremental(reports) {
  const files = {};
  const testFiles = {};
  for (const report of reports) {
    const keyOf = new Map();
    for (const [path, testFile] of Object.entries(report.testFiles ?? {})) {
      for (const test of testFile.tests) keyOf.set(test.id, JSON.stringify([path, test.name]));
      testFiles[path] = testFile;
    }
    const toKeys = (ids) => ids?.map((id) => keyOf.get(id)).filter((key) => key !== undefined);
    for (const [path, file] of Object.entries(report.files)) {
      const mutants = file.mutants.map((m) => ({ ...m, coveredBy: toKeys(m.coveredBy), killedBy: toKeys(m.killedBy) }));
      files[path] = { ...file, mutants };
    }
  }
  const idOf = new Map();
  const renumbered = {};
  for (const [path, testFile] of Object.entries(testFiles)) {
    const tests = testFile.tests.map((test) => {
      const id = String(idOf.size);
      idOf.set(JSON.stringify([path, test.name]), id);
      return { ...test, id };
    });
    renumbered[path] = { ...testFile, tests };
  }
  const toIds = (keys) => keys?.map((key) => idOf.get(key)).filter((id) => id !== undefined);
  for (const file of Object.values(files)) {
    file.mutants = file.mutants.map((m) => withoutUndefined({ ...m, coveredBy: toIds(m.coveredBy), killedBy: toIds(m.killedBy) }));
  }
  const last = reports.at(-1) ?? {};
  return { ...last, files, testFiles: renumbered };
}

function withoutUndefined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const inputs = [...(existsSync(COMMITTED) ? [COMMITTED] : []), ...process.argv.slice(2)];
  const merged = mergeIncremental(inputs.map((file) => JSON.parse(readFileSync(file, 'utf8'))));
  writeFileSync(COMMITTED, `${JSON.stringify(merged)}\n`);
  console.log(`${COMMITTED}: ${Object.keys(merged.files).length} source files from ${inputs.length} incremental files`);
}
