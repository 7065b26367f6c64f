// Mutation testing of the pure modules (`npm run mutate`; README "Development"). Not part of `npm test`: a full run
// takes tens of minutes; the incremental file makes a re-run after a change take minutes.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// Tests find the corpus beside the repository (test/helpers/corpus.ts); Stryker runs them from a sandbox copy
// inside .stryker-tmp, so point them at the real one.
const shared = resolve('../shared');
if (process.env.DASHCD_SHARED_DIR === undefined && existsSync(shared)) process.env.DASHCD_SHARED_DIR = shared;

/**
 * The committed incremental file holds the results of the last full run, so a fresh clone re-tests only the mutants
 * whose code or covering tests changed since. Stryker rewrites it with the results of the files it mutated in that
 * run only, so a run over part of the scope (`--mutate src/plan/diff.ts`) gets a file of its own under reports/,
 * seeded from the committed one, and never shrinks the committed one.
 */
const COMMITTED_INCREMENTAL = 'test/mutation/incremental.json';

function incrementalFile(argv) {
  const at = argv.findIndex((arg) => arg === '--mutate' || arg === '-m');
  const scope = at >= 0 ? argv[at + 1] : argv.find((arg) => arg.startsWith('--mutate='))?.slice('--mutate='.length);
  if (scope === undefined) return COMMITTED_INCREMENTAL;
  const file = `reports/mutation/incremental/${scope.replace(/[^\w.-]+/g, '_')}.json`;
  if (!existsSync(file) && existsSync(COMMITTED_INCREMENTAL)) {
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(COMMITTED_INCREMENTAL, file);
  }
  return file;
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  // Only the tests that reach a mutant run against it.
  coverageAnalysis: 'perTest',
  // Mutants that do not type-check are dropped before any test runs (cheaper than running the suite on them).
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [
    'src/plan/**/*.ts',
    'src/dashboards/**/*.ts',
    'src/documents/**/*.ts',
    // desired/: the pure modules; file discovery, reading, git, the worker pool and the loader do I/O.
    'src/desired/check-file.ts',
    'src/desired/dashboard-rules.ts',
    'src/desired/dashboard-yaml.ts',
    'src/desired/derive-id.ts',
    'src/desired/desired-cache.ts',
    'src/desired/locate-problems.ts',
    'src/desired/id-edit.ts',
    'src/desired/packed-check.ts',
    'src/desired/yaml-hazards.ts',
    'src/desired/fast-yaml/**/*.ts',
    // pull/: the pure form of a pulled document; reading, writing files and adopting do I/O.
    'src/pull/pulled-document.ts',
    // archive/: planning and parsing; writers, locks, sessions and the pull loop do I/O.
    'src/archive/archived-event.ts',
    'src/archive/checkpoint.ts',
    'src/archive/feed-page-parse.ts',
    'src/archive/page-window.ts',
    'src/archive/pull-plan.ts',
    'src/archive/time-arg.ts',
    'src/archive/version-index.ts',
    'src/schema/**/*.ts',
    'src/client/retry*.ts',
    'src/server/feed/cursor.ts',
    'src/server/feed/feed-query.ts',
    // Event ids as int64 digits/words, and keyset paging over the in-memory index: pure, no I/O.
    'src/server/feed/int64.ts',
    'src/server/feed/index-query.ts',
    // The one pass every JSON body takes before JSON.parse, and the canonical layout a PUT is stored from: pure.
    'src/server/http/plain-json.ts',
    // Whether an error answer closes its connection: only when it leaves a request body unread.
    'src/server/http/unread-body.ts',
    // The YAML pull writes: every string parses back exactly.
    'src/lib/exact-yaml.ts',
    // The events pull's one pass over a page: accepts exactly what JSON.parse accepts.
    'src/lib/json-page-scan.ts',
    // The JSON character codes and whitespace both scanners share.
    'src/lib/json-chars.ts',
    // When the token files are read again: on the monotonic clock, so a revocation is never held off.
    'src/lib/reload-schedule.ts',
    // Authorisation decisions (issue 31): the API's token check, the console's, the webhook's and the daemon's
    // allow-list of targets and token variables.
    'src/server/http/authenticate.ts',
    'src/daemon/target-allow-list.ts',
    // When the watched folder's commit is read for the status: off the path from a saved file to live.
    'src/daemon/folder-commit.ts',
    // environments/: all of it; load-templates reads files, through unit tests on temporary folders.
    'src/environments/**/*.ts',
    // source/: all but run-git.ts and git-source.ts (I/O: they spawn git; covered by integration tests).
    'src/source/delivery-memory.ts',
    'src/source/follow.ts',
    'src/source/git-credentials.ts',
    'src/source/push-webhook.ts',
    'src/source/revision.ts',
    'src/source/source-error.ts',
    // console/: all of it; the handler through a real listener on 127.0.0.1 in its unit test.
    'src/console/**/*.ts',
    // preview/: all but render-png.ts (one call into the native resvg renderer with fixed options).
    'src/preview/**/*.ts',
    '!src/preview/render-png.ts',
  ],
  incremental: true,
  incrementalFile: incrementalFile(process.argv),
  // Two cores, shared with the rest of the machine; override with `npm run mutate -- --concurrency N`.
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  // The sandbox needs sources, tests and configs only.
  ignorePatterns: ['/dist', '/dist-bench', '/reports', '/events-archive', '/dashboards', '/bench/results', '/.dashcd', '/docs'],
  cleanTempDir: 'always',
};
