import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/client/errors.js';
import { defineCommand } from '../../../src/cli/command.js';
import { CliError, ExitCode } from '../../../src/cli/exit-codes.js';
import { asTargetUnavailable } from '../../../src/cli/with-target.js';
import { runDashcd } from '../../helpers/cli.js';

/**
 * The top-level error print of runCli: a message may quote a target, a feed or git, whose words could hold escape
 * sequences and line breaks. The terminal and the CI log get no control character and no line of theirs.
 */
const HOSTILE = 'nope \u001b]0;PWNED-TITLE\u0007\u001b[2K\u001b[1A\u001b[31mFAKE: all good\n::error title=Injected::x\r\u009b2J';
const SHOWN = 'nope  ]0;PWNED-TITLE  [2K [1A [31mFAKE: all good ::error title=Injected::x  2J';
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

function failing(error: () => unknown) {
  return defineCommand({
    path: ['fail'],
    summary: 'throws',
    flags: {},
    examples: [],
    run: async () => {
      throw error();
    },
  });
}

const run = (error: () => unknown) => runDashcd(['fail'], { cwd: process.cwd(), commands: [failing(error)] });

describe("runCli prints an error's message without control characters", () => {
  it("a target's error (wrapped for exit 4, as withTarget does): one line", async () => {
    const result = await run(() => asTargetUnavailable(new ApiError(`403 from http://t: ${HOSTILE}`, { status: 403, method: 'GET', url: 'http://t/x', attempts: 1 })));
    expect(result.code).toBe(ExitCode.TargetUnavailable);
    expect(result.stderr).toBe(`dashcd fail: 403 from http://t: ${SHOWN}\n`);
  });

  it('any CliError that wraps a cause, and an unexpected error: one line', async () => {
    const wrapped = await run(() => new CliError(`cannot follow the repository: ${HOSTILE}`, ExitCode.Usage, { cause: new Error('git') }));
    expect(wrapped.stderr).toBe(`dashcd fail: cannot follow the repository: ${SHOWN}\n`);
    const unexpected = await run(() => new TypeError(HOSTILE));
    expect(unexpected.code).toBe(ExitCode.Unexpected);
    expect(unexpected.stderr).toBe(`dashcd fail: unexpected error: ${SHOWN}\n`);
  });

  it("dashcd's own message keeps its lines; control characters in it go all the same", async () => {
    const result = await run(() => new CliError('plan acts on one environment: choose it with --env NAME. Declared in dashcd.yaml:\n  prod\u001b[2K\r\n  dev ✓ 監視', ExitCode.Usage));
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toBe('dashcd fail: plan acts on one environment: choose it with --env NAME. Declared in dashcd.yaml:\n  prod [2K \n  dev ✓ 監視\n');
    expect(result.stderr).not.toMatch(CONTROL_BUT_LF);
  });

  it('names a resource the machine ran out of, without "unexpected error" (serve on a full disk said so, with a stack)', async () => {
    const full = await run(() => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }));
    expect(full.code).toBe(ExitCode.Unexpected);
    expect(full.stderr).toBe('dashcd fail: the machine ran out of disk space (ENOSPC): free some and run it again\n');
    const descriptors = await run(() => new Error('wrapped', { cause: Object.assign(new Error('EMFILE'), { code: 'EMFILE' }) }));
    expect(descriptors.stderr).toBe('dashcd fail: the machine ran out of file descriptors (EMFILE): free some and run it again\n');
  });
});
