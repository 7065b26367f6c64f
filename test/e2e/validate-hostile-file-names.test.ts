import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';

/**
 * A committer names the files: one name holds an escape sequence (retitle the terminal, erase and overwrite the line
 * above), another line breaks around a GitHub Actions workflow command. What validate and plan print of them must
 * drive nothing and start no line of its own (docs/security.md, "drive the operator's terminal").
 */
const ESCAPES = 'dashboards/e\u001b]0;PWNED\u0007\u001b[2K\u001b[1Avil.yaml';
const LINE_BREAKS = 'dashboards/ok\n::error title=Injected::from file name\n.yaml';
/** A dashboard with one problem (a tile without bounds), so each file is named in a diagnostic. */
const BROKEN = 'dashboardMetadata:\n  name: Broken\n  owner: me@example.com\ntiles:\n  - name: Notes\n    tileType: MARKDOWN\n    markdown: hi\n';
/** Anything that could drive a terminal or end a line, besides the line feeds dashcd writes itself. */
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Lines that a CI runner would take as a workflow command: those dashcd writes are its annotations of a problem. */
function commandLines(output: string): string[] {
  return output.split('\n').filter((line) => line.trimStart().startsWith('::'));
}

describe('validate and plan with hostile file names', () => {
  it('validate prints each name on its own line without a control character, and only its own annotations', async () => {
    project = await createProject({ [ESCAPES]: BROKEN, [LINE_BREAKS]: BROKEN });
    const result = await runDashcd(['validate'], { cwd: project.root, env: { GITHUB_ACTIONS: 'true' } });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    // The annotations (src/cli/diagnostics-output.ts) escape a name's line breaks as GitHub asks, and its other
    // control characters are spaces there too.
    const shown = result.stdout.split('\n').filter((line) => line !== '' && !line.startsWith('::error file='));
    expect(shown).toHaveLength(2);
    for (const output of [result.stdout, result.stderr]) expect(output).not.toMatch(CONTROL_BUT_LF);
    expect(result.stdout).toContain('dashboards/e ]0;PWNED  [2K [1Avil.yaml:');
    expect(result.stdout).toContain('dashboards/ok ::error title=Injected::from file name .yaml:');
    // Two problems, two annotations, each `::error file=…` with the name escaped as GitHub reads it; nothing else.
    const commands = commandLines(result.stdout);
    expect(commands).toHaveLength(2);
    for (const line of commands) expect(line).toMatch(/^::error file=dashboards\/(e \]0;PWNED {2}\[2K \[1Avil|ok%0A%3A%3Aerror title=Injected%3A%3Afrom file name%0A)\.yaml/);
    expect(commandLines(result.stderr)).toEqual([]);
  });

  it('plan prints the diagnostics the same way before it asks any target', async () => {
    project = await createProject({ [ESCAPES]: BROKEN, [LINE_BREAKS]: BROKEN });
    const result = await runDashcd(['plan'], { cwd: project.root, env: { DT_ENV_URL: 'http://127.0.0.1:9/e/none', DT_API_TOKEN: 'dt0c01.test' } });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toMatch(CONTROL_BUT_LF);
      expect(commandLines(output)).toEqual([]);
    }
    expect(result.stdout + result.stderr).toContain('dashboards/ok ::error title=Injected::from file name .yaml:');
  });
});
