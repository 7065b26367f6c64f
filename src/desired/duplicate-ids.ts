import { readAtHead } from './git-info.js';
import type { Diagnostic } from './diagnostic.js';
import { isJsonFile } from './json-file-check.js';
import { idPosition } from './locate-problems.js';

/** One file claiming an id: where it is (relative to `cwd`) and whether the id is written in it or derived. */
export interface IdClaim {
  file: string;
  source: string;
  idSource: 'file' | 'derived';
  /** A platform dashboard or notebook: its id is `document.id`. */
  kind?: 'document' | undefined;
}

export interface DuplicateId {
  id: string;
  first: IdClaim;
  later: IdClaim;
}

/**
 * One diagnostic per repeated id, on the copy when git can tell which file that is: the one that did not hold this
 * id at HEAD (untracked, or its id line is new). Outside git, or when git cannot tell, both files are named as
 * candidates. Git is asked only when there is a duplicate, so a clean load never runs it.
 */
export async function duplicateIdDiagnostics(duplicates: readonly DuplicateId[], cwd: string): Promise<Diagnostic[]> {
  return Promise.all(
    duplicates.map(async (duplicate) => {
      const [firstAtHead, laterAtHead] = await Promise.all([heldAtHead(duplicate.first, duplicate.id, cwd), heldAtHead(duplicate.later, duplicate.id, cwd)]);
      if (firstAtHead === true && laterAtHead === false) return copyDiagnostic(duplicate.id, duplicate.later, duplicate.first);
      if (firstAtHead === false && laterAtHead === true) return copyDiagnostic(duplicate.id, duplicate.first, duplicate.later);
      return undecidedDiagnostic(duplicate.id, duplicate.later, duplicate.first);
    }),
  );
}

/** Whether the file held `id` at HEAD; undefined outside git (or with no commit yet): nothing to compare with. */
async function heldAtHead(claim: IdClaim, id: string, cwd: string): Promise<boolean | undefined> {
  const before = await readAtHead(cwd, claim.file);
  if (before.kind === 'no-history') return undefined;
  if (before.kind === 'absent') return false;
  // A derived id comes from the path, which is the same as at HEAD; a written one must have been there already.
  return claim.idSource === 'derived' || before.text.toLowerCase().includes(id.toLowerCase());
}

function copyDiagnostic(id: string, copy: IdClaim, original: IdClaim): Diagnostic {
  const fix = copy.idSource === 'file' ? `remove its ${idSpelling(copy)} so it gets its own id from its path` : 'give it an id of its own';
  return {
    ...at(copy),
    message: `duplicate ${noun(copy)} id ${id}${how(copy)}: ${where(original)} already has it${how(original)}; this file is new in the change (not so at git HEAD), so it is the copy: ${fix}`,
  };
}

function undecidedDiagnostic(id: string, later: IdClaim, first: IdClaim): Diagnostic {
  return {
    ...at(later),
    message: `duplicate ${noun(later)} id ${id}${how(later)}: ${where(first)} has the same id${how(first)}; one of the two is a copy: remove the ${idSpelling(later)} from the copy so it gets its own id from its path`,
  };
}

function noun(claim: IdClaim): string {
  return claim.kind === 'document' ? 'document' : 'dashboard';
}

/** The id as the file writes it: a YAML line, or a JSON file's member; a document's in its `document:` block. */
function idSpelling(claim: IdClaim): string {
  if (claim.kind === 'document') return 'document.id';
  return isJsonFile(claim.file) ? '"id" member' : 'id: line';
}

function idPath(claim: IdClaim): string[] {
  return claim.kind === 'document' ? ['document', 'id'] : ['id'];
}

function at(claim: IdClaim): Pick<Diagnostic, 'file' | 'line' | 'col' | 'path'> {
  return { file: claim.file, ...position(claim), path: idPath(claim).join('.') };
}

function where(claim: IdClaim): string {
  const { line, col } = position(claim);
  return `${claim.file}:${line}:${col}`;
}

function position(claim: IdClaim): { line: number; col: number } {
  return claim.idSource === 'file' ? idPosition(claim.source, idPath(claim)) : { line: 1, col: 1 };
}


function how(claim: IdClaim): string {
  return claim.idSource === 'derived' ? ' (derived from its path)' : '';
}
