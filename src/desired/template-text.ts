import type { Problem } from './dashboard-rules.js';
import { sourceLinePos } from './source-line-pos.js';

/** `${{ values.x }}`, `${{ env.name }}`, `${{ dashboard("…") }}`: dashcd's templates, not another tool's (`${{ secrets.X }}`). */
const DASHCD_TEMPLATE = /\$\{\{\s*(?:values\.|env\.(?:name|group)\b|dashboard\s*\()/;

const MESSAGE = 'a template, but dashcd.yaml declares no environments to give it values: it is applied as the text it is; declare environments (docs/environments.md) or write the value itself';

/**
 * A file is checked this way only without environments (with them it is a template, environments/load-templates.ts),
 * where a template is text, applied as written, braces and all: a plan proposed the markdown
 * `On call: ${{ values.oncall }}` without a word. A warning at the first one, since a text may mean it.
 */
export function templateAsText(source: string): Problem | undefined {
  const found = DASHCD_TEMPLATE.exec(source);
  if (!found) return undefined;
  return { ...sourceLinePos(source, found.index), path: '', message: MESSAGE };
}
