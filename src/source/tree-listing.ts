import { quoted } from '../lib/quoted.js';

/**
 * What a followed commit would put on disk, read from `git ls-tree -r -z -l` before anything is written: a checkout
 * writes the files itself (tree-checkout.ts), so a commit decides none of where or how, and what it may ask of the
 * disk is bounded before the first byte.
 */

/** One file of the commit: a blob (a regular or executable file, or a symlink, whose content is its target). */
export interface TreeFile {
  readonly path: string;
  readonly oid: string;
  readonly size: number;
}

/** How much of the disk one checkout may take. */
export interface CheckoutLimits {
  readonly maxFiles: number;
  /** Bytes written, files whose content is not written (past `largestWritten`) aside. */
  readonly maxBytes: number;
  /** A file larger than this is not written out but made a sparse file of its size, which the loader refuses unread. */
  readonly largestWritten: number;
}

/** Linux's NAME_MAX: a longer name cannot be created, and failed the whole checkout. */
const MAX_NAME_BYTES = 255;
/** A whole path, well inside PATH_MAX (4,096) wherever the data dir is: 18 folders of 250 bytes could not be made. */
const MAX_PATH_BYTES = 1024;
/**
 * Folders a checkout makes, and how deep: git shares tree objects, so a push of 3 kB named 200 files 500 folders deep
 * (100,202 folders, 393 MB on disk), and one of a few more thousand such paths would have used up the host's inodes.
 */
export const MAX_FOLDERS = 20_000;
export const MAX_DEPTH = 32;

/**
 * The files of `git ls-tree -r -z -l` output, or why the commit cannot be checked out. Submodules (commits in the
 * tree) are no files of this repository and are left out, as a checkout without `--recurse-submodules` does.
 */
export function readTreeListing(output: string): { files: TreeFile[] } | { refused: string } {
  const files: TreeFile[] = [];
  const folders = new Set<string>();
  for (const record of output.split('\0')) {
    if (record === '') continue;
    const match = /^\d{6} (blob|commit|tree) ([0-9a-f]{40,64}) +(\d+|-)\t(.+)$/s.exec(record);
    if (!match) return { refused: `git ls-tree printed a line dashcd cannot read: ${quoted(record)}` };
    const [, type, oid, size, path] = match as unknown as [string, string, string, string, string];
    if (type !== 'blob') continue;
    const bad = pathProblem(path);
    if (bad !== undefined) return { refused: bad };
    files.push({ path, oid, size: Number(size) });
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) folders.add(path.slice(0, at));
    if (folders.size > MAX_FOLDERS) return { refused: `the commit's dashboards folder and the folders above it make more than ${MAX_FOLDERS.toLocaleString('en-US')} folders, over what a checkout makes` };
  }
  // A crafted tree can hold a file and a folder of one name (git itself never writes one): no checkout holds both.
  const clash = files.find((file) => folders.has(file.path));
  if (clash !== undefined) return { refused: `the commit holds ${quoted(clash.path)} as a file and as a folder` };
  return { files };
}

/**
 * Why a path from the commit may not be written inside the checkout: git's own checkout refuses `..`, `.git` and
 * empty components, but the objects of a fetched repository are not checked, and this checkout writes the files itself.
 */
export function pathProblem(path: string): string | undefined {
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `the commit holds a path longer than ${MAX_PATH_BYTES} bytes: ${quoted(path)}`;
  if (path.split('/').length > MAX_DEPTH + 1) return `the commit holds a file more than ${MAX_DEPTH} folders deep (from the repository's root), deeper than a checkout makes: ${quoted(path)}`;
  for (const name of path.split('/')) {
    // A backslash or colon is a separator or a drive somewhere: refused as git refuses them on such systems.
    if (name === '' || name === '.' || name === '..' || name.toLowerCase() === '.git' || /[\0\\:]/.test(name)) {
      return `the commit holds a path no checkout writes: ${quoted(path)}`;
    }
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
      return `the commit holds a file name longer than ${MAX_NAME_BYTES} bytes, which no file system here can create: ${quoted(path)}`;
    }
  }
  return undefined;
}

/** Why these files would take more of the disk than a checkout may; undefined when they fit. */
export function checkoutRefusal(files: readonly TreeFile[], limits: CheckoutLimits): string | undefined {
  if (files.length > limits.maxFiles) return `the commit's dashboards folder holds ${files.length.toLocaleString('en-US')} files, over the ${limits.maxFiles.toLocaleString('en-US')} a checkout takes`;
  const bytes = files.reduce((sum, file) => sum + (file.size > limits.largestWritten ? 0 : file.size), 0);
  if (bytes > limits.maxBytes) return `the commit's dashboards folder holds ${mebibytes(bytes)} MiB, over the ${mebibytes(limits.maxBytes)} MiB a checkout takes`;
  return undefined;
}

const mebibytes = (bytes: number): string => (bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 });
