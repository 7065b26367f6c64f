import { booleanFlag, defineCommand, stringFlag } from '../command.js';
import { parseTargetUrl } from '../target.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';

const ARCHES = ['all', 'x86', 'ppc', 'ppcle', 'sparc', 'arm', 's390'];

export const installerUrlCommand = defineCommand({
  path: ['installer-url'],
  summary: 'Print the agent installer address for ONEAGENT_INSTALLER_SCRIPT_URL',
  description: 'The token is appended only with --with-token (as Api-Token), because URLs end up in logs.',
  flags: {
    target: { type: 'string', description: 'Environment URL (else DT_ENV_URL, else http://127.0.0.1:8080/e/local)', valueName: 'url' },
    arch: { type: 'string', description: `One of ${ARCHES.join(', ')}`, default: 'x86', valueName: 'arch' },
    'with-token': { type: 'boolean', description: 'Append the token from DT_API_TOKEN (a token with InstallerDownload)' },
  },
  examples: ['dashcd installer-url --target https://abc123.live.dynatrace.com', 'DT_API_TOKEN=… dashcd installer-url --with-token'],
  async run({ flags }, io) {
    const arch = stringFlag(flags, 'arch') ?? 'x86';
    if (!ARCHES.includes(arch)) throw new UsageError(`--arch must be one of ${ARCHES.join(', ')}`);
    const base = parseTargetUrl(stringFlag(flags, 'target') ?? io.env.DT_ENV_URL ?? io.env.DYNATRACE_ENV_URL ?? 'http://127.0.0.1:8080/e/local');
    const url = new URL(`${base}/api/v1/deployment/installer/agent/unix/default/latest`);
    url.searchParams.set('arch', arch);
    url.searchParams.set('flavor', 'default');
    if (booleanFlag(flags, 'with-token')) {
      const token = io.env.DT_API_TOKEN ?? io.env.DYNATRACE_API_TOKEN;
      // A missing token is exit 4, as for every command that needs one (the README's exit-code table).
      if (!token) throw new CliError('--with-token needs DT_API_TOKEN (a token with the InstallerDownload scope)', ExitCode.TargetUnavailable);
      url.searchParams.set('Api-Token', token);
    }
    io.stdout.write(`${url.toString()}\n`);
    return ExitCode.Success;
  },
});
