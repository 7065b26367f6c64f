import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../http/http-error.js';
import type { Route, RouteResponse } from '../http/route.js';

/** What metainfo reports and the built-in script names; an operator's own installer is not inspected for it. */
export const LATEST_AGENT_VERSION = '1.0.0.20260101-000000';
export const INSTALLER_ARCHES = ['all', 'x86', 'ppc', 'ppcle', 'sparc', 'arm', 's390'] as const;
export const INSTALLER_FLAVORS = ['default', 'multidistro', 'musl'] as const;

export interface InstallerRouteDeps {
  /** The operator's installer script in the data dir; served instead of the built-in one when it exists. */
  readonly installerFile: string;
}

const BASE = '/api/v1/deployment/installer/agent/unix/default/latest';

/**
 * The OneAgent installer download as a container deployment fetches it (`ONEAGENT_INSTALLER_SCRIPT_URL`). It is
 * the only route that takes its token from the URL, because that address is all such a deployment can send.
 */
export function createInstallerRoutes({ installerFile }: InstallerRouteDeps): Route[] {
  const etags = new EtagCache();
  return [
    {
      method: 'GET',
      path: BASE,
      scope: 'InstallerDownload',
      tokenInQuery: true,
      handle: async (ctx) => {
        const { arch, flavor } = installerQuery(ctx.query);
        const file = await stat(installerFile).then((s) => (s.isFile() ? s : undefined), () => undefined);
        if (file) {
          const etag = await etags.of(installerFile, `${file.ino}:${file.size}:${file.mtimeMs}`);
          return notModified(ctx.headers, etag) ?? script(createReadStream(installerFile), file.size, etag);
        }
        const bytes = Buffer.from(defaultScript(arch, flavor));
        const etag = etagOf(bytes);
        return notModified(ctx.headers, etag) ?? script(bytes, bytes.length, etag);
      },
    },
    {
      method: 'GET',
      path: `${BASE}/metainfo`,
      scope: 'InstallerDownload',
      handle: async () => ({ status: 200, body: { latestAgentVersion: LATEST_AGENT_VERSION } }),
    },
  ];
}

function installerQuery(query: URLSearchParams): { arch: string; flavor: string } {
  const arch = query.get('arch') ?? 'x86';
  const flavor = query.get('flavor') ?? 'default';
  const violations = [];
  if (!(INSTALLER_ARCHES as readonly string[]).includes(arch)) {
    violations.push({ path: 'arch', message: `Must be one of: ${INSTALLER_ARCHES.join(', ')}.` });
  }
  if (!(INSTALLER_FLAVORS as readonly string[]).includes(flavor)) {
    violations.push({ path: 'flavor', message: `Must be one of: ${INSTALLER_FLAVORS.join(', ')}.` });
  }
  if (violations.length > 0) {
    throw HttpError.constraints(violations.map((v) => ({ ...v, parameterLocation: 'QUERY' as const, location: null })));
  }
  return { arch, flavor };
}

function script(body: Uint8Array | Readable, length: number, etag: string): RouteResponse {
  return {
    status: 200,
    body,
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(length),
      'content-disposition': 'attachment; filename="oneagent-installer.sh"',
      etag,
    },
  };
}

/** 304 when `If-None-Match` lists this ETag (weak comparison, as RFC 9110 prescribes for GET) or `*`. */
function notModified(headers: IncomingHttpHeaders, etag: string): RouteResponse | undefined {
  const header = headers['if-none-match'];
  if (!header) return undefined;
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes(etag) || tags.includes('*') ? { status: 304, headers: { etag } } : undefined;
}

function etagOf(bytes: Uint8Array): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/** Hashes the operator's file once per version of it (inode, size, mtime), streaming, so size does not matter. */
class EtagCache {
  private cached: { signature: string; etag: string } | undefined;

  async of(file: string, signature: string): Promise<string> {
    if (this.cached?.signature === signature) return this.cached.etag;
    const hash = createHash('sha256');
    await pipeline(createReadStream(file), hash);
    const etag = `"${hash.digest('base64url').slice(0, 27)}"`;
    this.cached = { signature, etag };
    return etag;
  }
}

/**
 * The built-in installer: a harmless script that says what a real installer would do and changes nothing. The
 * arch and flavor it names come from the validated enums above, never from raw input.
 */
export function defaultScript(arch: string, flavor: string): string {
  return [
    '#!/bin/sh',
    '# OneAgent installer placeholder served by dashcd (embedded configuration API).',
    '# It installs nothing. Put a real installer at <data dir>/installer/agent-unix-default.sh to serve that instead.',
    'set -eu',
    `echo "dashcd: would install OneAgent ${LATEST_AGENT_VERSION} (unix, default installer, arch=${arch}, flavor=${flavor})"`,
    'if [ "$#" -gt 0 ]; then echo "dashcd: installer arguments: $*"; fi',
    'echo "dashcd: nothing was installed (placeholder installer)"',
    'exit 0',
    '',
  ].join('\n');
}
