import { z } from 'zod';

/** Token scopes as the real service names them, with the description its 403 messages quote. */
export const SCOPE_DESCRIPTIONS = {
  ReadConfig: 'Read configuration',
  WriteConfig: 'Write configuration',
  DataExport: 'Access problem and event feed, metrics, and topology',
  InstallerDownload: 'PaaS integration - Installer download',
} as const;

export const Scope = z.enum(['ReadConfig', 'WriteConfig', 'DataExport', 'InstallerDownload']);
export type Scope = z.infer<typeof Scope>;

/**
 * Platform scopes: what platform tokens and OAuth clients carry for the platform services (the Document service).
 * Kept apart from the classic API's `Scope`: a platform credential never works against the classic API, nor a
 * classic token against the platform.
 */
export const PLATFORM_SCOPE_DESCRIPTIONS = {
  'document:documents:read': 'Read documents',
  'document:documents:write': 'Create and change documents',
  'document:documents:delete': 'Delete documents (move them to the trash)',
  'document:trash.documents:read': 'Read documents in the trash',
  'document:trash.documents:delete': 'Delete documents in the trash for good',
  'document:trash.documents:restore': 'Restore documents from the trash',
} as const;

export const PlatformScope = z.enum([
  'document:documents:read',
  'document:documents:write',
  'document:documents:delete',
  'document:trash.documents:read',
  'document:trash.documents:delete',
  'document:trash.documents:restore',
]);
export type PlatformScope = z.infer<typeof PlatformScope>;
