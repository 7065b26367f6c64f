import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../../schema/ids.js';
import { SCOPE_DESCRIPTIONS, Scope } from '../../schema/scopes.js';
import { TokenStoreError, openTokenStore, type TokenInfo, type TokenStore } from '../../server/auth/token-store.js';
import { acquireOwnership, dataDirLayout, listEnvironments, readOwner, type OwnerInfo } from '../../server/data-dir.js';
import { defineCommand, listFlag, stringFlag, type CommandIo, type FlagSpec, type FlagValues } from '../command.js';
import { dataFlag } from '../common-flags.js';
import { dataDirOf } from '../data-dir-default.js';
import { unlessLocked, untilSettled } from '../local-store.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { ownerAdmin, type OwnerAdmin } from '../owner-admin.js';
import { closest } from '../parse-args.js';
import { projectEmbeddedEnvironments } from '../project-environments.js';
import { misspeltEnvironment, nearHeldEnvironment, revokeMissHint, tokenEnvironmentNote, type TokenCommand } from '../token-env-note.js';
import {
  PLATFORM_SCOPE_LIST,
  PLATFORM_TOKEN_FLAGS,
  createPlatformCredential,
  renderPlatformCredentials,
  revokePlatformCredential,
  wantsPlatformCredential,
} from './platform-token.js';

// local is the data dir's own environment; a project with environments in dashcd.yaml uses theirs (a note says so).
const envFlag: FlagSpec = { type: 'string', description: 'Environment id (with environments in dashcd.yaml: one of theirs, else a note says so; one edit from theirs is refused)', default: DEFAULT_ENVIRONMENT, valueName: 'id' };
const VALID_SCOPES = Object.entries(SCOPE_DESCRIPTIONS).map(([scope, description]) => `${scope} (${description})`).join(', ');
const WHERE =
  'Tokens live in <data>/env/<env>/tokens.json (mode 0600, digests only). While a dashcd serve or daemon owns the data ' +
  'dir, the change goes through it and applies from its next request on; otherwise the file is edited directly.';

export const tokenCreateCommand = defineCommand({
  path: ['token', 'create'],
  summary: 'Create an API token (or, with platform scopes, a platform token or OAuth client); it is printed once, alone on the last line of stdout',
  description: `${WHERE} Platform scopes (${PLATFORM_SCOPE_LIST}) make a platform token for the Document service instead (Authorization: Bearer), or with --oauth-client an OAuth client; those live in <data>/env/<env>/platform-tokens.json, written directly.`,
  flags: {
    data: dataFlag,
    env: envFlag,
    scopes: { type: 'string', description: `Comma-separated scopes: ${Object.keys(SCOPE_DESCRIPTIONS).join(', ')}; or platform scopes`, valueName: 'list', multiple: true },
    name: { type: 'string', description: 'A label shown by token list, usable with token revoke', default: 'unnamed', valueName: 'name' },
    ...PLATFORM_TOKEN_FLAGS,
  },
  examples: [
    'dashcd token create --scopes ReadConfig,WriteConfig --name ci',
    'export DT_API_TOKEN=$(dashcd token create --env staging --scopes DataExport --name archiver | tail -n 1)',
    'export DT_PLATFORM_TOKEN=$(dashcd token create --scopes document:documents:read,document:documents:write --name docs | tail -n 1)',
    'dashcd token create --oauth-client --scopes document:documents:read,document:documents:write --name ci-client',
  ],
  async run({ flags }, io) {
    const { root, env } = await location(flags, io);
    // dashcd.yaml read once, for both checks.
    const [held, declared] = await Promise.all([listEnvironments(root), projectEmbeddedEnvironments(io.cwd)]);
    const misspelt = misspeltEnvironment(env, declared, held);
    if (misspelt !== undefined) throw new UsageError(misspelt);
    const near = nearHeldEnvironment(env, declared, held);
    // Said once the credential is made: a command refused for its scopes made no environment to warn about.
    const sayNear = (): void => {
      if (near !== undefined) io.stderr.write(`note: environment ${env} is new in ${root}, one letter from ${near}, which it has: was --env ${near} meant?\n`);
    };
    const raw = listFlag(flags, 'scopes');
    if (wantsPlatformCredential(raw, flags)) {
      const code = await createPlatformCredential(root, env, raw, flags, io);
      sayNear();
      return code;
    }
    const scopes = parseScopes(raw);
    const name = stringFlag(flags, 'name') ?? 'unnamed';
    const { token, info } = await withTokens(root, io, 'write', {
      viaOwner: (admin) => admin.createToken(env, { name, scopes }),
      viaFile: async () => (await openStore(root, env)).create({ name, scopes }),
    });
    io.stderr.write(`Created token ${info.id} "${info.name}" (${info.scopes.join(', ')}) in environment ${env}; it is not shown again:\n`);
    sayNear();
    await writeNote(env, 'create', io);
    io.stdout.write(`${token}\n`);
    return ExitCode.Success;
  },
});

export const tokenListCommand = defineCommand({
  path: ['token', 'list'],
  summary: 'List the API tokens, platform tokens and OAuth clients of an environment (kind, id, name, scopes, subject, created; never the secret)',
  description: WHERE,
  flags: { data: dataFlag, env: envFlag },
  examples: ['dashcd token list', 'dashcd token list --env staging'],
  async run({ flags }, io) {
    const { root, env } = await location(flags, io);
    // Before asking a running owner too, whose 404 said only "Environment stagin not found".
    await requireEnvironment(root, env, io.cwd);
    const tokens = await withTokens(root, io, 'read', {
      viaOwner: (admin) => admin.listTokens(env),
      viaFile: async () => (await openStore(root, env)).list(),
    });
    io.stdout.write(renderTokenTable(tokens));
    const platform = await renderPlatformCredentials(root, env);
    if (platform !== '') io.stdout.write(`\nPlatform tokens and OAuth clients:\n${platform}`);
    if (tokens.length === 0 && platform === '') io.stderr.write(`No tokens in environment ${env}; create one with 'dashcd token create'.\n`);
    await writeNote(env, 'list', io);
    return ExitCode.Success;
  },
});

export const tokenRevokeCommand = defineCommand({
  path: ['token', 'revoke'],
  summary: 'Revoke a token by id or by name; it is refused from the next request on',
  description: `${WHERE} A name that several tokens share is an error: revoke those by id.`,
  flags: { data: dataFlag, env: envFlag },
  positionals: [{ name: 'id-or-name', description: 'Token id (the 24 characters after dt0c01.) or name', required: true }],
  examples: ['dashcd token revoke ci', 'dashcd token revoke QJ5ZP4XWE3NOLRS2VKBDGMYT --env staging'],
  async run({ flags, positionals }, io) {
    const idOrName = positionals[0] ?? '';
    const { root, env } = await location(flags, io);
    if (await revokePlatformCredential(root, env, idOrName)) {
      io.stderr.write(`Revoked platform credential '${idOrName}' in environment ${env}.\n`);
      await writeNote(env, 'revoke', io);
      return ExitCode.Success;
    }
    const revoked = await withTokens(root, io, 'write', {
      viaOwner: (admin) => admin.revokeToken(env, idOrName),
      viaFile: async () => {
        await requireEnvironment(root, env, io.cwd);
        return (await openStore(root, env)).revoke(idOrName);
      },
    });
    // A name that matches nothing is a failed lookup (exit 1, like `pull` of an id the target lacks), not a usage error.
    if (!revoked) {
      const hint = await revokeMissHint(env, io.cwd, await environmentsHolding(root, env, idOrName));
      throw new CliError(`no token with id or name '${idOrName}' in environment ${env}${hint}`, ExitCode.Unexpected);
    }
    io.stderr.write(`Revoked token '${idOrName}' in environment ${env}.\n`);
    await writeNote(env, 'revoke', io);
    return ExitCode.Success;
  },
});

/** Pure: one row per token, columns padded to their widest cell. */
export function renderTokenTable(tokens: readonly TokenInfo[]): string {
  const rows = [['ID', 'NAME', 'SCOPES', 'CREATED'], ...tokens.map((t) => [t.id, t.name, t.scopes.join(','), t.createdAt])];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n') + '\n';
}

function parseScopes(raw: readonly string[]): Scope[] {
  if (raw.length === 0) throw new UsageError(`--scopes is required: one or more of ${VALID_SCOPES}`);
  return [
    ...new Set(
      raw.map((item) => {
        const scope = Scope.safeParse(item);
        if (scope.success) return scope.data;
        const hint = closest(item, Object.keys(SCOPE_DESCRIPTIONS));
        throw new UsageError(`unknown scope '${item}'${hint ? ` — did you mean ${hint}?` : '.'} Valid scopes: ${VALID_SCOPES}`);
      }),
    ),
  ];
}

async function location(flags: FlagValues, io: CommandIo): Promise<{ root: string; env: EnvironmentId }> {
  const rawEnv = stringFlag(flags, 'env') ?? DEFAULT_ENVIRONMENT;
  const env = EnvironmentId.safeParse(rawEnv);
  if (!env.success) throw new UsageError(`--env '${rawEnv}' is not a valid environment id (lowercase letters, digits and dashes)`);
  return { root: await dataDirOf(stringFlag(flags, 'data'), io.cwd), env: env.data };
}

interface TokenAccess<T> {
  viaOwner(admin: OwnerAdmin): Promise<T>;
  viaFile(): Promise<T>;
}

/**
 * Sends the operation to the dashcd that owns the data dir, so its in-memory store changes too; with no owner,
 * reads the file directly and writes it while holding the ownership lock, so no server starts mid-edit.
 */
async function withTokens<T>(root: string, io: CommandIo, mode: 'read' | 'write', access: TokenAccess<T>): Promise<T> {
  const throughOwner = (owner: OwnerInfo | undefined): owner is OwnerInfo => owner !== undefined && owner.url !== '' && owner.lasting;
  if (mode === 'read') {
    const owner = await readOwner(root);
    return throughOwner(owner) ? access.viaOwner(ownerAdmin(owner, { signal: io.signal })) : mapStoreErrors(access.viaFile);
  }
  // A `serve` still starting, or another command's own server (gone with it): waited for, as plan and apply wait.
  // `serve … & dashcd token create` failed one run in two, exit 4 ("still starting") or ECONNREFUSED.
  const written = await untilSettled(root, io, async (owner) => {
    if (owner !== undefined) return throughOwner(owner) ? { value: await access.viaOwner(ownerAdmin(owner, { signal: io.signal })) } : undefined;
    // Its moment with the data dir, not a server that stays: others wait for it to end, not for its address.
    const ownership = await acquireOwnership(root, { lasting: false }).catch(unlessLocked);
    if (ownership === undefined) return undefined;
    try {
      return { value: await mapStoreErrors(access.viaFile) };
    } finally {
      await ownership.release();
    }
  });
  return written.value;
}

async function mapStoreErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof TokenStoreError)) throw error;
    throw new CliError(error.message, error.code === 'TOKEN_FILE_DAMAGED' ? ExitCode.Unexpected : ExitCode.Usage, { cause: error });
  }
}

function openStore(root: string, env: EnvironmentId): Promise<TokenStore> {
  return openTokenStore({ file: dataDirLayout(root).tokensFile(env) });
}

async function writeNote(env: EnvironmentId, command: TokenCommand, io: CommandIo): Promise<void> {
  const note = await tokenEnvironmentNote(env, io.cwd, command);
  if (note !== undefined) io.stderr.write(note);
}

/**
 * The data dir's other environments whose token file has a token of that id or name. Read from the files, as a
 * running owner keeps them too; a damaged file holds none here (revoking there says what is wrong with it).
 */
async function environmentsHolding(root: string, except: EnvironmentId, idOrName: string): Promise<EnvironmentId[]> {
  const others = (await listEnvironments(root)).filter((env) => env !== except);
  const holds = await Promise.all(
    others.map(async (env) => {
      const tokens = await openStore(root, env).then((store) => store.list(), () => []);
      return tokens.some((t) => t.id === idOrName || t.name === idOrName);
    }),
  );
  return others.filter((_, i) => holds[i]);
}

async function requireEnvironment(root: string, env: EnvironmentId, cwd: string): Promise<void> {
  const [known, declared] = await Promise.all([listEnvironments(root), projectEmbeddedEnvironments(cwd)]);
  if (known.includes(env)) return;
  // A typo of an environment dashcd.yaml declares is one token create refuses: it must not be offered ("creates it").
  const misspelt = misspeltEnvironment(env, declared, known);
  if (misspelt !== undefined) throw new UsageError(misspelt);
  const near = closest(env, known, Math.floor(env.length / 2));
  const next = near === undefined ? `; 'dashcd token create --env ${env}' creates it` : ` — did you mean ${near}?`;
  throw new UsageError(`environment '${env}' does not exist in ${root} (known: ${known.join(', ')})${next}`);
}
