import { checkDashboardSource } from './check-file.js';
import { isDocumentShaped } from './detect-kind.js';
import { checkDocumentSource } from './document-check.js';
import { fastParseYaml } from './fast-yaml/fast-parse.js';
import { documentValue, flowNestingOffset, NESTED_TOO_DEEPLY, parseYamlDocument } from './yaml-hazards.js';
import { packCheck, packDocumentCheck, type PackedCheck } from './packed-check.js';
import { sourceLinePos } from './source-line-pos.js';
import { templateAsText } from './template-text.js';
import { cappedProblems, moreProblems } from './capped-problems.js';
import type { Problem } from './dashboard-rules.js';

/**
 * One file's check in the form the loader holds (packed-check.ts), whichever kind it is: a platform dashboard or
 * notebook (a `document:` member, or a document's content) goes to the document checks, anything else to the
 * classic ones, whose fast path keeps the parse made here. The same on a worker and on the calling thread.
 */
export function checkSource(source: string): PackedCheck {
  const check = checkByKind(source);
  const literal = check.ok ? templateAsText(source) : undefined;
  return capped(literal ? { ...check, warnings: [...(check.warnings ?? []), literal] } : check);
}

/** The check with at most MAX_FILE_PROBLEMS problems and warnings listed; the same object when it has no more. */
function capped(check: PackedCheck): PackedCheck {
  const warnings = check.warnings && cappedProblems(check.warnings, summarized);
  const problems = check.ok ? undefined : cappedProblems(check.problems, summarized);
  if (warnings === check.warnings && (check.ok || problems === check.problems)) return check;
  return { ...check, ...(problems ? { problems } : {}), ...(warnings ? { warnings } : {}) };
}

const summarized = (more: number, first: Problem): Problem => ({ line: first.line, col: first.col, path: '', message: moreProblems(more) });

function checkByKind(source: string): PackedCheck {
  const deep = flowNestingOffset(source);
  if (deep !== undefined) return { ok: false, problems: [{ ...sourceLinePos(source, deep), path: '', message: NESTED_TOO_DEEPLY }] };
  const fast = fastParseYaml(source);
  const documentShaped = fast.ok ? isDocumentShaped(fast.value) : mentionsDocument(source) && isDocumentShaped(slowValue(source));
  // Stryker disable next-line ObjectLiteral: speed only; without the parse made here the classic checks make it again
  if (!documentShaped) return packCheck(checkDashboardSource(source, { fast }));
  const check = checkDocumentSource(source, fast.ok ? { value: fast.value } : undefined);
  if (check.value === undefined) return { ok: false, problems: check.problems, ...(check.warnings.length > 0 ? { warnings: check.warnings } : {}) };
  return packDocumentCheck(check.value, check.warnings);
}

/**
 * Whether a text the fast parser declined may be a document: only then is it parsed a second time to look. Every
 * document-shaped file names one of these members; a classic file naming them only pays one more parse.
 */
function mentionsDocument(source: string): boolean {
  return /\b(?:document|layouts|sections)\b/.test(source);
}

/** The value `yaml` reads, or undefined for a text it cannot read (the classic checks then say where and why). */
function slowValue(source: string): unknown {
  const doc = parseYamlDocument(source, { prettyErrors: false });
  const read = doc.errors.length === 0 ? documentValue(doc) : undefined;
  return read?.ok ? read.value : undefined;
}
