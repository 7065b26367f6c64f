import type { FileCheck, Problem } from './dashboard-rules.js';

/**
 * A FileCheck as the loader holds it: a valid file's dashboard as JSON text, plus the few members the loader reads.
 * Text because a plan of 10,000 files holds every dashboard until its live counterpart is read: as objects that is
 * ~400 MB of small objects the garbage collector copies and marks again and again (a third of the check phase's
 * time), as text it is leaf strings it never looks into, and a string crosses from a worker thread without the
 * structured-clone decoding an object needs. The text is what apply sends anyway (JSON.stringify of the body).
 */
export type PackedCheck =
  | {
      ok: true;
      /** Absent: a classic dashboard; `document`: a platform dashboard or notebook (its body is the file form). */
      kind?: 'document';
      /** The file's own `id` when it is a non-empty string (the check has already made sure it is a UUID). */
      fileId: string | undefined;
      name: string;
      /** The file has a top-level `dashcd:` (environment overrides), which only an environments project may. */
      hasEnvironmentOverrides: boolean;
      /**
       * JSON of the file's object without `id` and `metadata` (a document: without `dashcd:` and `document.id`),
       * keys in file order.
       */
      bodyJson: string;
      warnings?: Problem[];
    }
  | { ok: false; problems: Problem[]; warnings?: Problem[] };

export function packCheck(check: FileCheck): PackedCheck {
  if (!check.ok) return check;
  const { id, metadata: _serverOwned, ...body } = check.value;
  return {
    ok: true,
    fileId: typeof id === 'string' && id !== '' ? id : undefined,
    name: (body.dashboardMetadata as { name: string }).name,
    hasEnvironmentOverrides: Object.hasOwn(body, 'dashcd'),
    bodyJson: JSON.stringify(body),
    ...(check.warnings ? { warnings: check.warnings } : {}),
  };
}

/**
 * A valid document file (desired/document-check.ts) as the loader holds it: the file form without what is not the
 * document's (`dashcd:`, dashcd's own) and without `document.id` (identity, not content). Its name is `document.name`.
 */
export function packDocumentCheck(value: Record<string, unknown>, warnings: readonly Problem[]): PackedCheck {
  const { dashcd: _dashcd, ...file } = value;
  const { id, ...block } = file.document as Record<string, unknown>;
  // Assigning a member the spread already made keeps its place: `document:` stays where the file has it.
  const body = { ...file, document: block };
  return {
    ok: true,
    kind: 'document',
    fileId: typeof id === 'string' && id !== '' ? id : undefined,
    name: block.name as string,
    hasEnvironmentOverrides: Object.hasOwn(value, 'dashcd'),
    bodyJson: JSON.stringify(body),
    ...(warnings.length > 0 ? { warnings: [...warnings] } : {}),
  };
}
