import { describe, expect, it } from 'vitest';
import { targetRefusals, type TargetRequest } from '../../../src/daemon/target-allow-list.js';

describe("targetRefusals: the daemon's own variables as an OAuth client's", () => {
  it('names the dashcd.yaml member that asks for the variable, once per variable', () => {
    const request: TargetRequest = {
      name: 'prod',
      target: {
        kind: 'remote',
        url: 'https://prod.example.com',
        tokenEnv: 'DT_PROD_TOKEN',
        platform: { url: 'https://abc12345.apps.dynatrace.com', credential: { kind: 'oauth-client', clientIdEnv: 'DASHCD_GIT_TOKEN', clientSecretEnv: 'DASHCD_WEBHOOK_SECRET', tokenUrl: 'https://sso.dynatrace.com/sso/oauth2/token' }, derived: false },
      },
    };
    expect(targetRefusals([request], [{ tokenEnv: 'DT_PROD_TOKEN', url: 'https://prod.example.com' }])).toEqual([
      "environment 'prod': oauthClientIdEnv DASHCD_GIT_TOKEN is one of the daemon's own DASHCD_* variables, never a target token",
      "environment 'prod': oauthClientSecretEnv DASHCD_WEBHOOK_SECRET is one of the daemon's own DASHCD_* variables, never a target token",
    ]);
  });
});
