/**
 * `text` without the slashes it ends with (`https://host/e/prod//` → `https://host/e/prod`). A loop from the end:
 * `/\/+$/` tries every run of slashes from its start, so a URL a committer wrote in dashcd.yaml with 60,000 slashes
 * before a last character took 3 s of the daemon's pass, before any check could refuse it.
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  // Before the start charCodeAt is NaN, no slash: the loop stops at 0.
  while (text.charCodeAt(end - 1) === SLASH) end--;
  return text.slice(0, end);
}

const SLASH = 0x2f;
