import { describe, expect, it } from 'vitest';
import { formatDiagnostic, formatWarning, type Diagnostic } from '../../../src/desired/diagnostic.js';

/** A committer's file names: one drives the terminal, the other breaks the line around a GitHub Actions command. */
const ESCAPES = 'dashboards/e\u001b]0;PWNED\u0007\u001b[2K\u001b[1Avil.yaml';
const LINE_BREAKS = 'dashboards/ok\n::error title=Injected::from file name\n.yaml';
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const problem = (d: Partial<Diagnostic>): Diagnostic => ({ file: 'dashboards/a.yaml', line: 5, col: 5, path: 'tiles[0].bounds', message: 'Required', ...d });

describe('formatDiagnostic and formatWarning: one printable line, whatever the file is called', () => {
  it('replaces the control characters of a file name with spaces', () => {
    expect(formatDiagnostic(problem({ file: ESCAPES }))).toBe('dashboards/e ]0;PWNED  [2K [1Avil.yaml:5:5  tiles[0].bounds: Required');
    expect(formatWarning(problem({ file: ESCAPES, line: 0 }))).toBe('dashboards/e ]0;PWNED  [2K [1Avil.yaml  warning: tiles[0].bounds: Required');
  });

  it('keeps a name with line breaks on one line: no line of it starts with ::', () => {
    const shown = formatDiagnostic(problem({ file: LINE_BREAKS }));
    expect(shown).toBe('dashboards/ok ::error title=Injected::from file name .yaml:5:5  tiles[0].bounds: Required');
    expect(shown.split('\n')).toHaveLength(1);
  });

  it('never starts a line with :: (a file so named, validated from its own folder): its path gets ./ before it', () => {
    expect(formatDiagnostic(problem({ file: '::error title=Forged::pwned.yaml', line: 1, col: 1 }))).toBe('./::error title=Forged::pwned.yaml:1:1  tiles[0].bounds: Required');
    expect(formatWarning(problem({ file: '::add-mask::x.yaml', line: 0 }))).toBe('./::add-mask::x.yaml  warning: tiles[0].bounds: Required');
    expect(formatDiagnostic(problem({ file: 'a::b.yaml' }))).toBe('a::b.yaml:5:5  tiles[0].bounds: Required');
  });

  it("makes the path, the environment and the message printable too (they quote a committer's keys, names and files)", () => {
    const shown = formatDiagnostic(problem({ path: 'tiles["a\u001b[2K"]', env: 'pr\nod', message: `duplicate dashboard id x: ${LINE_BREAKS}:1:5 has the same id` }));
    expect(shown).toBe('dashboards/a.yaml:5:5  [pr od] tiles["a [2K"]: duplicate dashboard id x: dashboards/ok ::error title=Injected::from file name .yaml:1:5 has the same id');
    expect(shown).not.toMatch(CONTROL);
  });

  it('leaves legitimate Unicode in names as it is', () => {
    expect(formatDiagnostic(problem({ file: 'dashboards/équipe/监控 👩‍💻.yaml', message: 'Größe fehlt' }))).toBe('dashboards/équipe/监控 👩‍💻.yaml:5:5  tiles[0].bounds: Größe fehlt');
  });
});
