import { Writable } from 'node:stream';
import { tokenCreateCommand, tokenListCommand, tokenRevokeCommand } from '../../src/cli/commands/token.js';
import { runCli } from '../../src/cli/run.js';
import { silentLogger, type Logger } from '../../src/lib/logger.js';

/** `dashcd token …` in process, in `cwd`, with its exit code and both outputs. */
export async function runTokenCli(cwd: string, argv: readonly string[], log: Logger = silentLogger()): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]): Writable => new Writable({ write: (chunk, _enc, done) => (into.push(String(chunk)), done()) });
  const io = { stdout: sink(out), stderr: sink(err), env: {}, cwd, log, signal: new AbortController().signal };
  const code = await runCli([tokenCreateCommand, tokenListCommand, tokenRevokeCommand], [...argv], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}
