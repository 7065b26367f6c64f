import { describe, expect, it } from 'vitest';
import { parseProjectConfig } from '../../../src/config/project-config.js';
import { canonicalTargetUrl, parseTargetGrant, targetRefusals, type TargetRequest } from '../../../src/daemon/target-allow-list.js';
import { declaredEnvironments } from '../../../src/environments/environment.js';

const remote = (name: string, url: string, tokenEnv: string): TargetRequest => ({ name, target: { kind: 'remote', url, tokenEnv } });
const PROD = { tokenEnv: 'DT_PROD_TOKEN', url: 'https://prod.example.com' };

describe('parseTargetGrant', () => {
  it('reads VAR=URL, splitting at the first = only', () => {
    expect(parseTargetGrant('DT_PROD_TOKEN=https://prod.example.com')).toEqual(PROD);
    expect(parseTargetGrant('_t1=https://h.example.com/e/a=b')).toEqual({ tokenEnv: '_t1', url: 'https://h.example.com/e/a=b' });
  });

  it.each(['https://prod.example.com', '=https://prod.example.com', '1X=https://h.example.com', 'A-B=https://h.example.com', ' A=https://h.example.com'])(
    'refuses %j: no variable name before the =',
    (text) => {
      expect(parseTargetGrant(text)).toBe(`--allow-target must be VARIABLE=URL (the variable holding the token, then the target it may go to), got '${text}'`);
    },
  );

  it.each(['DASHCD_WEBHOOK_SECRET', 'DASHCD_GIT_TOKEN', 'dashcd_git_token', 'DASHCD_X'])('never grants the daemon\'s own %s', (name) => {
    expect(parseTargetGrant(`${name}=https://h.example.com`)).toBe(`--allow-target ${name}: the daemon's own DASHCD_* variables can never be target tokens`);
  });

  it('grants a name that only contains DASHCD_ elsewhere', () => {
    expect(parseTargetGrant('MY_DASHCD_TOKEN=https://h.example.com')).toEqual({ tokenEnv: 'MY_DASHCD_TOKEN', url: 'https://h.example.com' });
  });

  it.each(['', 'h.example.com', 'ftp://h.example.com', 'https://u:p@h.example.com', 'https://u@h.example.com', 'https://h.example.com/?a=1', 'https://h.example.com/#x'])(
    'refuses the URL %j',
    (url) => {
      expect(parseTargetGrant(`T=${url}`)).toBe(`--allow-target T=…: '${url}' is not an http(s) environment URL without credentials, query or fragment`);
    },
  );
});

describe('canonicalTargetUrl', () => {
  it('compares scheme, host, port and path, without trailing slashes', () => {
    expect(canonicalTargetUrl('HTTPS://Prod.Example.com:443/e/abc//')).toBe('https://prod.example.com/e/abc');
    expect(canonicalTargetUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(canonicalTargetUrl('http://h.example.com')).toBe('http://h.example.com');
  });

  it('has no form for other schemes, credentials, queries, fragments or non-URLs', () => {
    for (const url of ['file:///etc', 'https://a:b@h.example.com', 'https://:b@h.example.com', 'https://a@h.example.com', 'https://h.example.com?x', 'https://h.example.com#x', 'not a url']) {
      expect(canonicalTargetUrl(url)).toBeUndefined();
    }
  });
});

describe('targetRefusals', () => {
  it('lets embedded environments and granted pairs through', () => {
    const environments = [{ name: 'dev', target: { kind: 'embedded' as const } }, remote('prod', 'https://prod.example.com/', 'DT_PROD_TOKEN')];
    expect(targetRefusals(environments, [PROD])).toEqual([]);
    expect(targetRefusals([remote('prod', 'https://PROD.example.com', 'DT_PROD_TOKEN')], [{ ...PROD, url: 'https://prod.example.com///' }])).toEqual([]);
  });

  it('refuses a granted variable sent elsewhere, and another variable sent to a granted target, naming each environment', () => {
    const refusals = targetRefusals(
      [remote('prod', 'http://attacker.example', 'DT_PROD_TOKEN'), remote('stage', 'https://prod.example.com', 'AWS_SECRET_ACCESS_KEY'), remote('ok', 'https://prod.example.com', 'DT_PROD_TOKEN')],
      [PROD],
    );
    expect(refusals).toEqual([
      "environment 'prod': the operator has not allowed DT_PROD_TOKEN to be sent to http://attacker.example (--allow-target)",
      "environment 'stage': the operator has not allowed AWS_SECRET_ACCESS_KEY to be sent to https://prod.example.com (--allow-target)",
    ]);
  });

  it('refuses everything remote when nothing is granted', () => {
    expect(targetRefusals([remote('prod', 'https://prod.example.com', 'DT_PROD_TOKEN')], [])).toHaveLength(1);
  });

  it('refuses a look-alike URL: credentials before the host, another path or port', () => {
    for (const url of ['https://prod.example.com@attacker.example', 'https://prod.example.com/e/other', 'https://prod.example.com:8443', 'http://prod.example.com']) {
      expect(targetRefusals([remote('prod', url, 'DT_PROD_TOKEN')], [PROD])).toHaveLength(1);
    }
  });

  it('refuses a target that is no URL, even when a grant holds the same text', () => {
    expect(targetRefusals([remote('prod', 'not a url', 'T')], [{ tokenEnv: 'T', url: 'not a url' }])).toHaveLength(1);
  });

  it("refuses the daemon's own variables even when a grant names them", () => {
    const granted = [{ tokenEnv: 'DASHCD_WEBHOOK_SECRET', url: 'https://prod.example.com' }];
    expect(targetRefusals([remote('prod', 'https://prod.example.com', 'DASHCD_WEBHOOK_SECRET')], granted)).toEqual([
      "environment 'prod': tokenEnv DASHCD_WEBHOOK_SECRET is one of the daemon's own DASHCD_* variables, never a target token",
    ]);
    expect(targetRefusals([remote('a', 'https://prod.example.com', 'dashcd_git_token'), remote('b', 'https://prod.example.com', 'DASHCD_WEBHOOK_SECRET')], granted)).toHaveLength(2);
  });
});

describe('targetRefusals for platform targets', () => {
  const PLATFORM_URL = 'https://abc12345.apps.dynatrace.com';
  const SSO = 'https://sso.dynatrace.com/sso/oauth2/token';
  const withPlatform = (name: string, platform: NonNullable<Extract<TargetRequest['target'], { kind: 'remote' }>['platform']>): TargetRequest => ({
    name,
    target: { kind: 'remote', url: PROD.url, tokenEnv: PROD.tokenEnv, platform },
  });
  const platformToken = (tokenEnv: string, url = PLATFORM_URL) => withPlatform('prod', { url, credential: { kind: 'platform-token', tokenEnv }, derived: false });
  const oauth = (clientIdEnv: string, clientSecretEnv: string, tokenUrl = SSO, url = PLATFORM_URL) =>
    withPlatform('prod', { url, credential: { kind: 'oauth-client', clientIdEnv, clientSecretEnv, tokenUrl }, derived: false });
  const OAUTH_GRANTS = [PROD, { tokenEnv: 'DT_CLIENT_ID', url: SSO }, { tokenEnv: 'DT_CLIENT_SECRET', url: SSO }, { tokenEnv: 'DT_CLIENT_SECRET', url: PLATFORM_URL }];

  it('lets a platform token through only to the platform URL granted for its variable', () => {
    const grants = [PROD, { tokenEnv: 'DT_PLATFORM_TOKEN', url: `${PLATFORM_URL}/` }];
    expect(targetRefusals([platformToken('DT_PLATFORM_TOKEN')], grants)).toEqual([]);
    expect(targetRefusals([platformToken('DT_PLATFORM_TOKEN', 'https://attacker.example')], grants)).toEqual([
      "environment 'prod': the operator has not allowed DT_PLATFORM_TOKEN to be sent to https://attacker.example (--allow-target)",
    ]);
    // The classic grant does not carry over: another variable to the platform, or the classic token's variable.
    expect(targetRefusals([platformToken('AWS_SECRET_ACCESS_KEY')], grants)).toEqual([
      "environment 'prod': the operator has not allowed AWS_SECRET_ACCESS_KEY to be sent to https://abc12345.apps.dynatrace.com (--allow-target)",
    ]);
    expect(targetRefusals([platformToken('DT_PROD_TOKEN')], grants)).toHaveLength(1);
    expect(targetRefusals([platformToken('DT_PLATFORM_TOKEN')], [PROD])).toHaveLength(1);
  });

  it("needs an OAuth client's id and secret granted to the token endpoint, and the secret to the platform URL its access token goes to", () => {
    expect(targetRefusals([oauth('DT_CLIENT_ID', 'DT_CLIENT_SECRET')], OAUTH_GRANTS)).toEqual([]);
    expect(targetRefusals([oauth('DT_CLIENT_ID', 'DT_CLIENT_SECRET', 'https://attacker.example/token')], OAUTH_GRANTS)).toEqual([
      "environment 'prod': the operator has not allowed DT_CLIENT_ID to be sent to https://attacker.example/token (--allow-target)",
      "environment 'prod': the operator has not allowed DT_CLIENT_SECRET to be sent to https://attacker.example/token (--allow-target)",
    ]);
    expect(targetRefusals([oauth('DT_CLIENT_ID', 'DT_CLIENT_SECRET', SSO, 'https://attacker.example')], OAUTH_GRANTS)).toEqual([
      "environment 'prod': the operator has not allowed DT_CLIENT_SECRET (as the access token it buys) to be sent to https://attacker.example (--allow-target)",
    ]);
    expect(targetRefusals([oauth('AWS_SECRET_ACCESS_KEY', 'DT_CLIENT_SECRET')], OAUTH_GRANTS)).toEqual([
      "environment 'prod': the operator has not allowed AWS_SECRET_ACCESS_KEY to be sent to https://sso.dynatrace.com/sso/oauth2/token (--allow-target)",
    ]);
  });

  it("checks a commit's dashcd.yaml as the daemon reads it: a derived platform URL needs its grant as a given one does", () => {
    const yaml = `environments:\n  prod:\n    target: https://abc12345.live.dynatrace.com\n    tokenEnv: DT_PROD_TOKEN\n    platformTokenEnv: DT_PLATFORM_TOKEN\n`;
    const environments = declaredEnvironments(parseProjectConfig(yaml, 'dashcd.yaml').config);
    const classic = { tokenEnv: 'DT_PROD_TOKEN', url: 'https://abc12345.live.dynatrace.com' };
    expect(targetRefusals(environments, [classic])).toEqual([
      "environment 'prod': the operator has not allowed DT_PLATFORM_TOKEN to be sent to https://abc12345.apps.dynatrace.com (--allow-target)",
    ]);
    expect(targetRefusals(environments, [classic, { tokenEnv: 'DT_PLATFORM_TOKEN', url: PLATFORM_URL }])).toEqual([]);
  });

  it("refuses the daemon's own variables as platform credentials, once per variable", () => {
    expect(targetRefusals([platformToken('DASHCD_GIT_TOKEN')], [PROD, { tokenEnv: 'DASHCD_GIT_TOKEN', url: PLATFORM_URL }])).toEqual([
      "environment 'prod': platformTokenEnv DASHCD_GIT_TOKEN is one of the daemon's own DASHCD_* variables, never a target token",
    ]);
    expect(targetRefusals([oauth('DT_CLIENT_ID', 'DASHCD_WEBHOOK_SECRET')], OAUTH_GRANTS)).toEqual([
      "environment 'prod': oauthClientSecretEnv DASHCD_WEBHOOK_SECRET is one of the daemon's own DASHCD_* variables, never a target token",
    ]);
  });
});
