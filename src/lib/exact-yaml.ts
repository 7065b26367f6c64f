import { Document, parse, Scalar, stringify, visit } from 'yaml';

const OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

/**
 * YAML that parses back to exactly `value`: no line folding, no anchors, and every multi-line string that `yaml`
 * would write as a block scalar it cannot read back the same (a first line of spaces only, as in `" \n"`, loses
 * its spaces to the block's indentation) written as a JSON string instead. Other strings keep their block form.
 */
export function exactYaml(value: unknown): string {
  const doc = new Document(value, OPTIONS);
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && node.value.includes('\n') && !blockReadsBack(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  // JSON's escapes in double quotes: `" \n"`, not YAML's `"\ \n"`.
  return doc.toString({ lineWidth: 0, doubleQuotedAsJSON: true });
}

function blockReadsBack(text: string): boolean {
  return (parse(stringify({ s: text }, OPTIONS)) as { s: unknown }).s === text;
}
