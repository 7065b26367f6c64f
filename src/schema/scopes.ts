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
