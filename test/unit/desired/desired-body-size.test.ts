import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withBodySizeCheck } from '../../../src/desired/body-size.js';
import { checkDashboardSource } from '../../../src/desired/check-file.js';

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

describe('body size check', () => {
  it('reports a dashboard over the limit with its size, counting the 256-byte write allowance', () => {
    const value = { dashboardMetadata: { name: 'x'.repeat(1000), owner: 'ops' }, tiles: [] };
    const bytes = jsonBytes(value) + 256;
    expect(withBodySizeCheck({ ok: true, value }, bytes)).toStrictEqual({ ok: true, value });
    const refused = withBodySizeCheck({ ok: true, value }, bytes - 1);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.problems[0]?.message).toBe(
      `too large for the target: ${bytes.toLocaleString('en-US')} bytes (0.00 MiB) as the JSON apply sends, over the target's request limit of ${(bytes - 1).toLocaleString('en-US')} bytes (0.00 MiB); split it into smaller dashboards`,
    );
  });

  it('trusts an alias-free text length only when six bytes per character fit, and serialises otherwise', () => {
    const value = { dashboardMetadata: { name: 'x'.repeat(1000), owner: 'ops' }, tiles: [] };
    const limit = jsonBytes(value) + 255;
    // 6 × 100 + 256 fits under the limit: the text is too short to be over it, whatever it holds.
    expect(withBodySizeCheck({ ok: true, value }, limit, 100).ok).toBe(true);
    // A text long enough to be over the limit is measured: this value is.
    expect(withBodySizeCheck({ ok: true, value }, limit, 200).ok).toBe(false);
  });

  it('never sees more than six JSON bytes per character of alias-free YAML, worst constructs included', () => {
    const worst = [
      'a: "\\0\\0\\0\\0\\0\\0"\n', // each escape (2 characters) becomes \u0000 (6 bytes)
      'a: {b, c, d, e, f, g}\n', // implicit nulls: 2 characters become "b":null,
      'a:\nb:\nc:\nd:\n', // empty values become null
      '- \n- \n- \n- \n', // empty items become null
      'a: "\u20ac\u20ac\u20ac\u20ac"\n', // one UTF-16 unit, three UTF-8 bytes
      'a: "\\x01\\x02\\x1f"\n',
      'a: |\n  x\n  y\n  z\n', // a block scalar's line breaks become \n
    ];
    for (const source of worst) expect(jsonBytes(parse(source)), source).toBeLessThanOrEqual(6 * source.length);
  });

  it('still refuses a file over the limit on the fast path', () => {
    const source = `dashboardMetadata:\n  name: CPU\n  owner: ops\ntiles:\n  - name: notes\n    tileType: MARKDOWN\n    bounds: {top: 0, left: 0, width: 304, height: 38}\n    markdown: "${'\\0'.repeat(200_000)}"\n`;
    const check = checkDashboardSource(source);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problems[0]?.message).toMatch(/^too large for the target: 1,200,\d{3} bytes/);
  });
});
