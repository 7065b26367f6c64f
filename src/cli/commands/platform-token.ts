import { errorMessage } from '../../lib/error-message.js';
import { PLATFORM_SCOPE_DESCRIPTIONS, PlatformScope } from '../../schema/scopes.js';
import type { EnvironmentId } from '../../schema/ids.js';
import { createCredential, listCredentials, revokeCredential, type CredentialInfo } from '../../server/auth/platform-credentials.js';
import { dataDirLayout } from '../../server/data-dir.js';
import { platformCredentialsFile } from '../../server/documents/document-api.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagSpec, type FlagValues } from '../command.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { closest } from '../parse-args.js';

/**
 * `dashcd token create` for the platform (the Document service): a platform token, or with --oauth-client an OAuth
 * client whose secret the token endpoint trades for access tokens. They live in `<data>/env/<env>/platform-tokens.json`
 * (digests only, 0600), written by the command directly; a running server reads the file again when it changes.
 */
export const PLATFORM_TOKEN_FLAGS: Readonly<Record<string, FlagSpec>> = {
  'oauth-client': { type: 'boolean', description: 'With platform scopes: create an OAuth client (prints DT_CLIENT_ID and DT_CLIENT_SECRET) instead of a platform token' },
  subject: { type: 'string', description: 'With platform scopes: the user the credential acts as, owner of what it creates (default: a new id)', valueName: 'id' },
};

export const PLATFORM_SCOPE_LIST = Object.keys(PLATFORM_SCOPE_DESCRIPTIONS).join(', ');

/** Whether the request is for a platform credential: any platform scope (`document:…`) or --oauth-client. */
export function wantsPlatformCredential(scopes: readonly string[], flags: FlagValues): boolean {
  return booleanFlag(flags, 'oauth-client') || scopes.some((scope) => scope.includes(':'));
}

export async function createPlatformCredential(root: string, env: EnvironmentId, raw: readonly string[], flags: FlagValues, io: CommandIo): Promise<ExitCode> {
  const scopes = raw.map((item) => {
    const scope = PlatformScope.safeParse(item);
    if (scope.success) return scope.data;
    const hint = closest(item, Object.keys(PLATFORM_SCOPE_DESCRIPTIONS));
    throw new UsageError(`'${item}' is not a platform scope${hint ? ` — did you mean ${hint}?` : '.'} A platform token or OAuth client takes platform scopes only: ${PLATFORM_SCOPE_LIST}`);
  });
  if (scopes.length === 0) throw new UsageError(`--scopes is required: one or more of ${PLATFORM_SCOPE_LIST}`);
  const kind = booleanFlag(flags, 'oauth-client') ? 'oauth-client' : 'platform-token';
  const subject = stringFlag(flags, 'subject');
  let created: Awaited<ReturnType<typeof createCredential>>;
  try {
    created = await createCredential(platformCredentialsFile(dataDirLayout(root), env), {
      kind,
      name: stringFlag(flags, 'name') ?? 'unnamed',
      scopes,
      ...(subject !== undefined ? { subject } : {}),
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'ZodError') throw new UsageError(`invalid platform credential: ${error.message}`);
    throw new CliError(errorMessage(error), ExitCode.Unexpected, { cause: error });
  }
  const { info } = created;
  const what = kind === 'oauth-client' ? 'OAuth client' : 'platform token';
  io.stderr.write(`Created ${what} ${info.id} "${info.name}" (${info.scopes.join(', ')}) acting as ${info.subject} in environment ${env}; the secret is not shown again:\n`);
  io.stdout.write(kind === 'oauth-client' ? `DT_CLIENT_ID=${created.clientId ?? ''}\nDT_CLIENT_SECRET=${created.secret}\n` : `${created.secret}\n`);
  return ExitCode.Success;
}

/** The platform credentials' table, or '' when there are none. */
export async function renderPlatformCredentials(root: string, env: EnvironmentId): Promise<string> {
  const credentials = await listCredentials(platformCredentialsFile(dataDirLayout(root), env));
  if (credentials.length === 0) return '';
  const rows = [['ID', 'KIND', 'NAME', 'SUBJECT', 'SCOPES', 'CREATED'], ...credentials.map(row)];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length))) ?? [];
  return rows.map((cells) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n') + '\n';
}

function row(info: CredentialInfo): string[] {
  return [info.kind === 'oauth-client' ? `dt0s02.${info.id}` : info.id, info.kind, info.name, info.subject, info.scopes.join(','), info.createdAt];
}

/** False, touching nothing, when no platform credential has that id or name (then it may be an API token's). */
export async function revokePlatformCredential(root: string, env: EnvironmentId, idOrName: string): Promise<boolean> {
  const file = platformCredentialsFile(dataDirLayout(root), env);
  const known = await listCredentials(file).catch(() => []);
  if (!known.some((info) => [info.id, info.name, `dt0s02.${info.id}`].includes(idOrName))) return false;
  try {
    return await revokeCredential(file, idOrName);
  } catch (error) {
    throw new CliError(errorMessage(error), ExitCode.Usage, { cause: error });
  }
}
