import { execFile, type ExecFileException } from 'node:child_process';
import { inheritedEnvironment } from '../lib/git-environment.js';
import { redactUrlCredentials } from './git-credentials.js';
import { classifyGitFailure, SourceError } from './source-error.js';

export interface RunGitOptions {
  /** `--git-dir` (the mirror) or a working folder; relative paths in args resolve against it. */
  cwd: string;
  /** Added to what git gets of the parent's environment (see `inheritedEnvironment`): credentials, GIT_INDEX_FILE. */
  env?: Readonly<Record<string, string>>;
  /** Values that must never appear in an error message (tokens and their encodings). */
  secrets?: readonly string[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 120_000;
// `for-each-ref` over many tags, `log` metadata: small outputs; the cap only stops a runaway.
const MAX_BUFFER = 32 * 1024 * 1024;

/**
 * Runs `git <args>` without a shell and returns stdout. A failure is a SourceError classified from stderr, with
 * every secret scrubbed from its message: git echoes URLs and server messages, which must not carry a token into a
 * log line or `/status`.
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<string> {
  const { secrets = [] } = options;
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: { ...inheritedEnvironment(process.env), ...options.env },
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxBuffer: MAX_BUFFER,
        encoding: 'utf8',
        windowsHide: true,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        reject(gitFailure(args, error, scrub(stderr, secrets), options.signal));
      },
    );
  });
}

function gitFailure(args: readonly string[], error: ExecFileException, stderr: string, signal?: AbortSignal): SourceError {
  const command = `git ${args.find((arg) => /^[a-z][a-z-]*$/.test(arg)) ?? ''}`;
  if (signal?.aborted || error.name === 'AbortError') return new SourceError('aborted', `${command} was cancelled`);
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return new SourceError('output-too-large', `${command} printed more than ${MAX_BUFFER / (1024 * 1024)} MiB`);
  if (error.code === 'ENOENT') return new SourceError('git-missing', 'git is not installed (or not on PATH); dashcd runs the git CLI to follow a repository');
  if (error.killed) return new SourceError('unreachable', `${command} timed out`);
  const detail = gitErrorDetail(stderr) || `exit code ${String(error.code)}`;
  return new SourceError(classifyGitFailure(stderr), `${command} failed: ${detail}`);
}


/**
 * The cause first: git's `fatal:`, `error:` and `remote:` lines say what went wrong, while its closing lines are
 * advice ("Please make sure you have the correct access rights"). Without such lines, the last lines.
 */
export function gitErrorDetail(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const causes = lines.filter((line) => /^(?:fatal|error|remote):/i.test(line));
  return (causes.length > 0 ? causes : lines).slice(-3).join(' / ');
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = redactUrlCredentials(text);
  for (const secret of secrets) if (secret !== '') out = out.split(secret).join('[REDACTED]');
  return out;
}
