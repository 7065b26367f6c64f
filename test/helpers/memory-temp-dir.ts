import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CANDIDATES, memoryBackedDir, type StatFs } from '../../bench/lib/memory-dir.js';

/** Room the whole suite's temporary files need at once, with margin (its peak measured ~250 MB). */
export const MIN_FREE_BYTES = 2 * 1024 ** 3;
export const MEMORY_DIR = CANDIDATES[0] ?? '/dev/shm';

/**
 * Where the suite's temporary files go: a memory-backed /dev/shm when the machine has one with room, else undefined
 * (the system's temp dir). Why: the tests' servers fsync every durable write, and on the 2-core machine's disk three
 * workers' fsyncs queue behind one another (the suite took 152 s with its temp files on ext4, 136 s on tmpfs). The
 * crash tests lose nothing by it: they kill processes, and a killed process's writes stay in the page cache on any
 * file system; fsync's place in each write is asserted through the FsLayer, not by a disk. A TMPDIR the user set wins.
 */
export async function memoryTempParent(env: NodeJS.ProcessEnv, statfs?: StatFs, candidate = MEMORY_DIR): Promise<string | undefined> {
  if (env.TMPDIR !== undefined && env.TMPDIR !== '') return undefined;
  return memoryBackedDir(MIN_FREE_BYTES, [candidate], statfs);
}

/** The TMPDIR the run was started with ('' for none), kept in the environment by the first project's setup. */
export const GIVEN_TMPDIR = 'DASHCD_TESTS_GIVEN_TMPDIR';

/**
 * Points `env.TMPDIR` (read by os.tmpdir() in the workers and in every process they start) at a directory of this
 * run on tmpfs, and returns what removes it, with anything a test left; undefined where memoryTempParent says no, and
 * in every project's setup after the first (each project of the config runs it; one directory serves the run).
 */
export async function useMemoryTempDir(env: NodeJS.ProcessEnv, statfs?: StatFs, candidate = MEMORY_DIR): Promise<(() => void) | undefined> {
  if (env[GIVEN_TMPDIR] !== undefined) return undefined;
  env[GIVEN_TMPDIR] = env.TMPDIR ?? '';
  const parent = await memoryTempParent(env, statfs, candidate);
  if (parent === undefined) return undefined;
  const dir = mkdtempSync(join(parent, 'dashcd-tests-'));
  env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Vitest's global setup, run before any worker starts; its teardown runs after the last. */
export default function setup(): Promise<(() => void) | undefined> {
  return useMemoryTempDir(process.env);
}
