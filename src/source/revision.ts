import { z } from 'zod';

/** One commit of the followed repository, as `/status`, the metrics and the logs name it. */
export const Revision = z.object({
  commit: z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/),
  shortCommit: z.string().min(4),
  /** Committer date, ISO 8601 with the committer's offset. */
  committedAt: z.string(),
  /** `Name <email>` */
  author: z.string(),
  /** The first line of the message. */
  subject: z.string(),
  /** What was followed to reach it: `refs/heads/main`, or the newest matching tag `refs/tags/release-7`. */
  ref: z.string(),
});
export type Revision = z.infer<typeof Revision>;

/** The `git log` format `parseRevision` reads: NUL-separated, since a subject may hold any other character. */
export const REVISION_FORMAT = '%H%x00%h%x00%cI%x00%an <%ae>%x00%s';

export function parseRevision(output: string, ref: string): Revision {
  // A field git did not print is missing, and the schema refuses it.
  const [commit, shortCommit, committedAt, author, subject] = output.replace(/\n$/, '').split('\0');
  return Revision.parse({ commit, shortCommit, committedAt, author, subject, ref });
}
