import { booleanFlag, defineCommand, listFlag, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { defaultDashboardsRoot } from '../dashboards-root.js';
import { printDiagnostics } from '../diagnostics-output.js';
import { envFlag, environmentMode, oneEnvironment } from '../environment-choice.js';
import { environmentToken } from '../environment-targets.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { readOwner } from '../../server/data-dir.js';
import { dataDirOf } from '../data-dir-default.js';
import { parseTargetUrl } from '../target.js';

const ARCHES = ['all', 'x86', 'ppc', 'ppcle', 'sparc', 'arm', 's390'];
/** Where `serve` and the daemon listen unless told otherwise, and none runs now. */
const EMBEDDED_BASE = 'http://127.0.0.1:8080';

export const installerUrlCommand = defineCommand({
  path: ['installer-url'],
  summary: 'Print the agent installer address for ONEAGENT_INSTALLER_SCRIPT_URL',
  description:
    'The token is appended only with --with-token (as Api-Token), because URLs end up in logs. In a project whose dashcd.yaml declares environments, --env chooses one: its target, and with --with-token the variable its tokenEnv names.',
  flags: {
    target: {
      type: 'string',
      description: "Environment URL (else DT_ENV_URL, else the project's local environment: <where its serve or daemon listens>/e/local, http://127.0.0.1:8080/e/local when none runs)",
      valueName: 'url',
    },
    env: { ...envFlag, description: 'The one environment of dashcd.yaml whose address to print' },
    arch: { type: 'string', description: `One of ${ARCHES.join(', ')}`, default: 'x86', valueName: 'arch' },
    'with-token': { type: 'boolean', description: 'Append the token from DT_API_TOKEN, or the --env environment’s tokenEnv (a token with InstallerDownload)' },
  },
  examples: ['dashcd installer-url --target https://abc123.live.dynatrace.com', 'DT_API_TOKEN=… dashcd installer-url --with-token', 'dashcd installer-url --env prod --with-token'],
  async run({ flags }, io) {
    const arch = stringFlag(flags, 'arch') ?? 'x86';
    if (!ARCHES.includes(arch)) throw new UsageError(`--arch must be one of ${ARCHES.join(', ')}`);
    const target = await installerTarget(flags, io);
    if (target === undefined) return ExitCode.InvalidDesiredState;
    const url = new URL(`${target.base}/api/v1/deployment/installer/agent/unix/default/latest`);
    url.searchParams.set('arch', arch);
    url.searchParams.set('flavor', 'default');
    if (booleanFlag(flags, 'with-token')) url.searchParams.set('Api-Token', target.token());
    io.stdout.write(`${url.toString()}\n`);
    return ExitCode.Success;
  },
});

/** The environment's base URL and where its token comes from; undefined when dashcd.yaml is invalid (printed). */
async function installerTarget(flags: FlagValues, io: CommandIo): Promise<{ base: string; token: () => string } | undefined> {
  // An address given is the answer wherever the command runs, a project with environments or an invalid one too.
  const given = stringFlag(flags, 'target');
  // The address would be --target's and --with-token's token DT_API_TOKEN, whatever --env said: refused, not ignored.
  if (given !== undefined && listFlag(flags, 'env').length > 0) throw new UsageError('--target and --env both name the environment: give one');
  if (given !== undefined) return { base: parseTargetUrl(given), token: () => tokenVariable(io) };
  const mode = await environmentMode(await defaultDashboardsRoot(io.cwd), flags, io);
  if (mode.kind === 'invalid') {
    printDiagnostics(mode.diagnostics, io);
    return undefined;
  }
  if (mode.kind === 'single') {
    return { base: parseTargetUrl(io.env.DT_ENV_URL ?? io.env.DYNATRACE_ENV_URL ?? `${await embeddedBase(io)}/e/local`), token: () => tokenVariable(io) };
  }
  const env = oneEnvironment(mode, 'installer-url');
  const { target } = env;
  if (target.kind !== 'remote') return { base: `${await embeddedBase(io)}/e/${env.name}`, token: () => tokenVariable(io) };
  return { base: target.url, token: () => environmentToken(env, target, io, ['InstallerDownload']) };
}

/** Where the project's serve or daemon listens (`npm start -- --listen …` moves it), else where they listen by default. */
async function embeddedBase(io: CommandIo): Promise<string> {
  const owner = await readOwner(await dataDirOf(undefined, io.cwd));
  return owner?.url && owner.lasting ? owner.url : EMBEDDED_BASE;
}

/** The token of `--target`, DT_ENV_URL or an embedded environment; missing, it is exit 4, as for every command. */
function tokenVariable(io: CommandIo): string {
  const token = io.env.DT_API_TOKEN ?? io.env.DYNATRACE_API_TOKEN;
  if (!token) throw new CliError('--with-token needs DT_API_TOKEN (a token with the InstallerDownload scope)', ExitCode.TargetUnavailable);
  return token;
}
