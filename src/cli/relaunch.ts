import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * Runs this very command again in a child of the same Node with extra Node options, and resolves with its exit code;
 * undefined when it runs here after all (the options are set already, or a debugger is asked for). The one way to
 * give a command started as `dashcd …` options Node reads only at start-up (V8's thread pool cannot be resized
 * later, and a V8 flag changed at run time crashed the process in a collection).
 */
export type Relauncher = (options: readonly string[]) => Promise<number> | undefined;

/** Set in the child's environment: it follows its launcher and never launches again. */
const LAUNCHED = 'DASHCD_LAUNCHED';
/** The launcher's request to stop cleanly, sent over the IPC channel. */
const STOP = 'stop';

export interface LaunchingProcess {
  readonly execPath: string;
  readonly execArgv: readonly string[];
  /** The script and its arguments (process.argv without Node itself). */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted when this process is asked to stop: the child is asked in turn. */
  readonly signal: AbortSignal;
}

/**
 * The option's name (`--v8-pool-size` of `--v8-pool-size=1`; Node reads `_` as `-`): one the operator set, to any
 * value, is theirs.
 */
const optionName = (option: string): string => (option.split('=', 1)[0] ?? option).replaceAll('_', '-');

const givenOptions = (execArgv: readonly string[], nodeOptions: string | undefined): string[] =>
  [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map(optionName);

/** Whether `option` (by name) is among the process's own options or NODE_OPTIONS. */
export function hasNodeOption(option: string, execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return givenOptions(execArgv, nodeOptions).includes(optionName(option));
}

/** A debugger asked for (`--inspect`, `--inspect-brk`, …) belongs to the process that runs the code: this one. */
const debugging = (execArgv: readonly string[], nodeOptions: string | undefined): boolean =>
  givenOptions(execArgv, nodeOptions).some((name) => name.startsWith('--inspect') || name.startsWith('--debug'));

/**
 * Whether the command `argv` names runs a server, and so is relaunched with the server's Node options. Decided from
 * the first word alone, before anything loads: the child reads the rest against serve's flag table, so it alone
 * tells `serve --help` from `serve --data -h` (a folder) and says so when its flags are wrong. Help pays one
 * Node start more for that.
 */
export function launchesServer(argv: readonly string[]): boolean {
  return argv[0] === 'serve';
}

/** The real entry point's relauncher (main.ts uses none in a process that was itself launched). */
export function processRelauncher(proc: LaunchingProcess): Relauncher {
  return (options) => {
    const nodeOptions = proc.env['NODE_OPTIONS'];
    if (debugging(proc.execArgv, nodeOptions)) return undefined;
    const missing = options.filter((option) => !hasNodeOption(option, proc.execArgv, nodeOptions));
    if (missing.length === 0) return undefined;
    // Asked to stop before the child ever ran: as the command would have, it stops at once, cleanly.
    if (proc.signal.aborted) return Promise.resolve(0);
    return runChild(proc, missing);
  };
}

function runChild(proc: LaunchingProcess, options: readonly string[]): Promise<number> {
  // In the launcher's process group: a terminal's Ctrl-C, Ctrl-Z or hang-up reaches both, as it would one process
  // (the child takes any number of stops as one; see followLauncher). The IPC channel carries the launcher's stop and
  // tells the child when the launcher is gone.
  const child = spawn(proc.execPath, [...proc.execArgv, ...options, ...proc.argv], {
    env: { ...proc.env, [LAUNCHED]: '1' },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  // Over the channel (a SIGTERM if it is gone); the child takes this and any signal it gets itself as one stop.
  const stop = (): void => {
    const signal = (): void => void child.kill('SIGTERM');
    if (child.connected) child.send(STOP, (error: Error | null) => error && signal());
    else signal();
  };
  proc.signal.addEventListener('abort', stop, { once: true });
  return new Promise<number>((resolve, reject) => {
    // Every error, not the first only: a failed kill later (EPERM) must not go unhandled and end the launcher.
    child.on('error', (error) => {
      proc.signal.removeEventListener('abort', stop);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      proc.signal.removeEventListener('abort', stop);
      // A child killed by a signal exits as a shell reports it: 128 + the signal's number.
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

/**
 * In a relaunched child (true; false elsewhere): stops cleanly when its launcher asks (`stop` is what a first
 * SIGINT/SIGTERM does), and dies with it. A launcher killed outright (SIGKILL, a crash) closes the IPC channel, and
 * the child goes the same way at once rather than serve on with nobody to stop it; a launcher that exits on a second
 * Ctrl-C means "stop now" for both. The channel never keeps the child alive by itself.
 */
export function followLauncher(proc: NodeJS.Process, stop: () => void): boolean {
  if (proc.env[LAUNCHED] === undefined || !proc.channel) return false;
  // Not handed down: a dashcd that this one starts (through git hooks, say) is launched by nobody.
  delete proc.env[LAUNCHED];
  proc.channel.unref();
  proc.on('message', (message) => {
    if (message === STOP) stop();
  });
  proc.once('disconnect', () => proc.kill(proc.pid, 'SIGKILL'));
  return true;
}
