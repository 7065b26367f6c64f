import { describe, expect, it } from 'vitest';
import { parseProjectConfig } from '../../../src/config/project-config.js';
import { declaredEnvironments } from '../../../src/environments/environment.js';
import { DEFAULT_TOKEN_URL, tokenUrlOf } from '../../../src/lib/platform-url.js';

const PLATFORM_TOKEN = `dt0s16.${'A'.repeat(24)}.${'B'.repeat(64)}`;

const yaml = (members: string): string => `environments:\n  prod:\n    target: https://abc12345.live.dynatrace.com\n    tokenEnv: PROD_TOKEN\n${members}`;

function diagnosticsOf(text: string): string[] {
  return parseProjectConfig(text, 'dashcd.yaml').diagnostics.map((d) => `${d.path}: ${d.message}`);
}

function platformOf(text: string): unknown {
  const { config, diagnostics } = parseProjectConfig(text, 'dashcd.yaml');
  expect(diagnostics).toEqual([]);
  const [env] = declaredEnvironments(config);
  return env?.target.kind === 'remote' ? env.target.platform : 'embedded';
}

describe('dashcd.yaml platform members', () => {
  it('derives the platform URL and the SSO token endpoint from a SaaS target where the pattern is certain', () => {
    expect(platformOf(yaml('    platformTokenEnv: PROD_PLATFORM_TOKEN\n'))).toEqual({
      url: 'https://abc12345.apps.dynatrace.com',
      credential: { kind: 'platform-token', tokenEnv: 'PROD_PLATFORM_TOKEN' },
      derived: true,
    });
    expect(platformOf(yaml('    oauthClientIdEnv: PROD_CLIENT_ID\n    oauthClientSecretEnv: PROD_CLIENT_SECRET\n'))).toEqual({
      url: 'https://abc12345.apps.dynatrace.com',
      credential: { kind: 'oauth-client', clientIdEnv: 'PROD_CLIENT_ID', clientSecretEnv: 'PROD_CLIENT_SECRET', tokenUrl: DEFAULT_TOKEN_URL },
      derived: true,
    });
  });

  it('takes platformTarget and oauthTokenUrl as given (trailing slashes dropped), for a host nothing is derived from', () => {
    const text =
      'environments:\n  prod:\n    target: https://dt.example.com/e/abc\n    tokenEnv: PROD_TOKEN\n    platformTarget: https://abc.apps.example.com/\n' +
      '    oauthClientIdEnv: ID\n    oauthClientSecretEnv: SECRET\n    oauthTokenUrl: https://sso.example.com/sso/oauth2/token\n';
    expect(platformOf(text)).toEqual({
      url: 'https://abc.apps.example.com',
      credential: { kind: 'oauth-client', clientIdEnv: 'ID', clientSecretEnv: 'SECRET', tokenUrl: 'https://sso.example.com/sso/oauth2/token' },
      derived: false,
    });
  });

  it('has no platform without a platform credential, and none for an embedded environment', () => {
    expect(platformOf(yaml(''))).toBeUndefined();
    expect(platformOf('environments:\n  dev:\n')).toBe('embedded');
  });

  it('refuses a token pasted as a variable name without echoing it', () => {
    const diagnostics = [
      ...diagnosticsOf(yaml(`    platformTokenEnv: ${PLATFORM_TOKEN}\n`)),
      ...diagnosticsOf(yaml('    oauthClientSecretEnv: "s3cr3t value"\n    oauthClientIdEnv: ID\n')),
    ];
    expect(diagnostics).toEqual([
      'environments.prod.platformTokenEnv: looks like an API token: never put a token in a file; put it in an environment variable (a CI secret) and name that variable in platformTokenEnv',
      'environments.prod.oauthClientSecretEnv: oauthClientSecretEnv is the name of an environment variable (letters, digits and _, e.g. PROD_DT_CLIENT_SECRET); this value (12 characters, not shown) is not one. If it is a token, it is now in the file: revoke it and make a new one',
    ]);
    expect(diagnostics.join('\n')).not.toContain(PLATFORM_TOKEN);
    expect(diagnostics.join('\n')).not.toContain('s3cr3t');
  });

  it('refuses platform URLs and token endpoints with credentials or a query, and other schemes', () => {
    expect(diagnosticsOf(yaml('    platformTokenEnv: P\n    platformTarget: https://u:p@abc.apps.dynatrace.com\n'))).toEqual([
      "environments.prod.platformTarget: the target URL must not carry credentials or a query; name the secret's variable in platformTokenEnv",
    ]);
    expect(diagnosticsOf(yaml('    oauthClientIdEnv: I\n    oauthClientSecretEnv: S\n    oauthTokenUrl: https://sso.example.com/token?client_secret=x\n'))).toEqual([
      "environments.prod.oauthTokenUrl: the target URL must not carry credentials or a query; name the secret's variable in oauthClientSecretEnv",
    ]);
    expect(diagnosticsOf(yaml('    platformTokenEnv: P\n    platformTarget: ftp://abc\n'))).toEqual(['environments.prod.platformTarget: the target must be http or https']);
  });

  it.each([
    ['    platformTokenEnv: P\n    oauthClientIdEnv: I\n    oauthClientSecretEnv: S\n', 'environments.prod.platformTokenEnv: platformTokenEnv or an OAuth client (oauthClientIdEnv, oauthClientSecretEnv), not both'],
    ['    oauthClientIdEnv: I\n', 'environments.prod.oauthClientSecretEnv: an OAuth client needs both oauthClientIdEnv and oauthClientSecretEnv; oauthClientSecretEnv is missing'],
    ['    platformTarget: https://abc12345.apps.dynatrace.com\n', 'environments.prod.platformTarget: a platform needs a credential: platformTokenEnv (a platform token), or oauthClientIdEnv and oauthClientSecretEnv (an OAuth client)'],
    ['    platformTokenEnv: P\n    oauthTokenUrl: https://sso.dynatrace.com/sso/oauth2/token\n', "environments.prod.oauthTokenUrl: oauthTokenUrl is an OAuth client's token endpoint; a platform token needs none"],
  ])('refuses an incomplete or mixed credential: %j', (members, message) => {
    expect(diagnosticsOf(yaml(members))).toEqual([message]);
  });

  it('asks for platformTarget and oauthTokenUrl where they cannot be derived', () => {
    const managed = 'environments:\n  prod:\n    target: https://managed.example.com/e/abc\n    tokenEnv: T\n';
    expect(diagnosticsOf(`${managed}    platformTokenEnv: P\n`)).toEqual([
      "environments.prod.platformTarget: the platform URL cannot be derived from target https://managed.example.com/e/abc (only <id>.live.dynatrace.com, the sprint/dev stages and dashcd's own server are certain); set platformTarget, e.g. https://abc12345.apps.dynatrace.com",
    ]);
    expect(diagnosticsOf(`${managed}    platformTarget: https://platform.example.com\n    oauthClientIdEnv: I\n    oauthClientSecretEnv: S\n`)).toEqual([
      'environments.prod.oauthTokenUrl: the OAuth token endpoint of https://platform.example.com cannot be derived; set oauthTokenUrl, e.g. https://sso.dynatrace.com/sso/oauth2/token',
    ]);
  });

  it('refuses platform members on an embedded environment', () => {
    expect(diagnosticsOf('environments:\n  dev:\n    platformTokenEnv: P\n')).toEqual([
      "environments.dev.platformTokenEnv: platformTokenEnv without a target: an embedded environment's Document service is the embedded server's (add target: URL for a real one)",
    ]);
  });
});

describe('tokenUrlOf', () => {
  it('knows SaaS, the sprint and dev stages and the embedded server, and nothing else', () => {
    expect(tokenUrlOf('https://abc12345.apps.dynatrace.com/')).toBe('https://sso.dynatrace.com/sso/oauth2/token');
    expect(tokenUrlOf('https://abc12345.sprint.apps.dynatracelabs.com')).toBe('https://sso-sprint.dynatracelabs.com/sso/oauth2/token');
    expect(tokenUrlOf('https://abc12345.dev.apps.dynatracelabs.com')).toBe('https://sso-dev.dynatracelabs.com/sso/oauth2/token');
    expect(tokenUrlOf('http://127.0.0.1:8080/e/dev/')).toBe('http://127.0.0.1:8080/e/dev/sso/oauth2/token');
    for (const url of ['https://abc12345.live.dynatrace.com', 'http://abc12345.apps.dynatrace.com', 'https://abc12345.apps.dynatrace.com/x', 'https://platform.example.com', 'not a url']) {
      expect(tokenUrlOf(url), url).toBeUndefined();
    }
  });
});
