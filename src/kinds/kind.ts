import { z } from 'zod';
import type { ApiClient } from '../client/api-client.js';
import type { ComparedKind } from '../plan/build-plan.js';

/**
 * What a kind is called, which files are its own and its JSON Schema's id: plain data, checked when a kind is
 * defined (defineKind) so a typo in an extension fails at start-up, not as files that silently never match.
 */
export const KindInfo = z.strictObject({
  /** As messages, plans and the console say it: `dashboard`, `dashboards`. */
  name: z.string().min(1),
  plural: z.string().min(1),
  /** The file name endings that are this kind's in the dashboards folder, lower case with the dot. */
  extensions: z.array(z.string().regex(/^\.[a-z0-9]+$/)).min(1),
  /** The `$id` of its JSON Schema (what an editor's `$schema` line names). */
  schemaId: z.string().min(1),
});
export type KindInfo = z.infer<typeof KindInfo>;

/** An owned live item as listing it shows it: enough to find orphans without reading each. */
export interface LiveStub {
  id: string;
  name: string;
  owner?: string;
  kind?: 'document';
}

/** A live item read as its text: decoded only when the plan has to compare it (plan/written-text.ts). */
export interface LiveItemText<Live> {
  readonly text: string;
  parse(): Live;
  /**
   * Why this caller may read the item but not change it (a document another user owns and shares read-only): a plan
   * that would write it says so as the file's problem, instead of apply meeting a 403 after a green plan.
   */
  readonly notWritable?: string;
}

/** How the pipeline reaches one kind's live items on a target: listed, read, written, deleted. */
export interface LiveItems<Live> {
  /** Every live item carrying the ownership mark: the prune candidates. */
  listOwned(mark: string): Promise<LiveStub[]>;
  /** Undefined: none with that id. */
  getText(id: string, options?: { signal?: AbortSignal }): Promise<LiveItemText<Live> | undefined>;
  /**
   * Create or replace: which of the two the target did. `expectedVersion` (kinds written under optimistic locking):
   * the version the plan read, absent for a create; a target that holds another answers 409 (an ApiError).
   * `metadataOnly`: the plan found the content the same, so only the rest is written (kinds whose content is bytes
   * the target keeps as sent: the live bytes stay).
   */
  put(id: string, body: string, expectedVersion?: number, metadataOnly?: boolean): Promise<'created' | 'updated'>;
  /** False when it was already gone (which counts as done). Documents go to the trash. */
  remove(id: string): Promise<boolean>;
}

/**
 * A kind of document dashcd keeps in git: what it contributes to each stage of source → desired → environments →
 * plan → apply, and to previews and the console. `plan/` stays kind-agnostic: it compares the JSON values a kind's
 * `comparedForm` gives and never asks which kind they came from.
 *
 * `Body` is a file's object as its schema types it, `Live` an item as the target returns it, `Id` its id.
 */
export interface Kind<Body, Live, Id extends string = string> extends ComparedKind {
  readonly info: KindInfo;
  /** File detection: whether a file of the folder (any path) is one of this kind's. */
  isFile(path: string): boolean;
  /** The file's schema (the single source of truth of `Body`) and, generated from it, its JSON Schema. */
  readonly schema: z.ZodType<Body>;
  jsonSchema(): object;
  /** Identity: the id of a file that names none, from its path relative to the dashboards folder (`/` separators). */
  deriveId(relativePath: string): Id;
  /*
   * From ComparedKind (plan/build-plan.ts): ownership (`isOwned`: only marked items are ever pruned), what apply
   * writes (`written`: the body with the mark added once), the compared form (`comparedForm`: the same for a file's
   * body and a live item when they mean the same), `sameContent` and, under optimistic locking, `versionOf`.
   */
  /** How live items are listed, read and written on a target. */
  live(api: ApiClient): LiveItems<Live>;
  /** Drawing: the small part of a body that previews and the console draw from. */
  layout(body: unknown): unknown;
}

/** A kind, its data checked (KindInfo). */
export function defineKind<Body, Live, Id extends string>(kind: Kind<Body, Live, Id>): Kind<Body, Live, Id> {
  KindInfo.parse(kind.info);
  return kind;
}
