import type { FlagSpec } from './command.js';

/** Flags several commands share, so their names, defaults and help read the same everywhere. */
export const dirFlag: FlagSpec = { type: 'string', description: 'Dashboards folder', default: 'dashboards', valueName: 'path' };
export const targetFlag: FlagSpec = {
  type: 'string',
  description: 'Environment URL (else DT_ENV_URL; else the embedded store in --data); token from DT_API_TOKEN',
  valueName: 'url',
};
export const dataFlag: FlagSpec = { type: 'string', description: 'Data dir of the embedded store', default: '.dashcd', valueName: 'path' };
export const concurrencyFlag: FlagSpec = { type: 'string', description: 'Parallel requests to the target', default: '8', valueName: 'n' };
