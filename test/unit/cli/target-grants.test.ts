import { describe, expect, it } from 'vitest';
import { operatorGrants, requireGrantedTarget } from '../../../src/cli/target-grants.js';
import { ExitCode, UsageError } from '../../../src/cli/exit-codes.js';
import type { Environment } from '../../../src/environments/environment.js';

const remote = (url: string, tokenEnv: string, platform?: unknown): Environment => ({ name: 'prod', target: { kind: 'remote', url, tokenEnv, ...(platform ? { platform } : {}) } }) as unknown as Environment;

describe('operatorGrants', () => {
  it('is undefined when DASHCD_ALLOW_TARGETS is unset, and no grant when it is blank', () => {
    expect(operatorGrants({})).toBeUndefined();
    expect(operatorGrants({ DASHCD_ALLOW_TARGETS: '' })).toEqual([]);
    expect(operatorGrants({ DASHCD_ALLOW_TARGETS: ' \n\t ' })).toEqual([]);
  });

  it('reads VAR=URL pairs separated by any blanks and line breaks', () => {
    expect(operatorGrants({ DASHCD_ALLOW_TARGETS: '\n A=https://a.example/e/x \n\tB=http://b.example\n' })).toEqual([
      { tokenEnv: 'A', url: 'https://a.example/e/x' },
      { tokenEnv: 'B', url: 'http://b.example' },
    ]);
  });

  it('refuses a malformed pair, a DASHCD_ variable or a URL with credentials as a usage error naming the variable', () => {
    const refused = (text: string): unknown => {
      try {
        operatorGrants({ DASHCD_ALLOW_TARGETS: text });
      } catch (error) {
        return [error instanceof UsageError, (error as UsageError).exitCode, (error as Error).message];
      }
      return 'accepted';
    };
    expect(refused('A=https://a.example novalue')).toEqual([true, ExitCode.Usage, "DASHCD_ALLOW_TARGETS must be VARIABLE=URL (the variable holding the token, then the target it may go to), got 'novalue'"]);
    expect(refused('DASHCD_GIT_TOKEN=https://a.example')).toEqual([true, ExitCode.Usage, "DASHCD_ALLOW_TARGETS DASHCD_GIT_TOKEN: dashcd's own DASHCD_* variables can never be target tokens"]);
    expect(refused('A=https://u:p@a.example')).toEqual([true, ExitCode.Usage, "DASHCD_ALLOW_TARGETS A=…: 'https://u:p@a.example' is not an http(s) environment URL without credentials, query or fragment"]);
  });
});

describe('requireGrantedTarget', () => {
  it('lets every environment through when DASHCD_ALLOW_TARGETS is unset, and a granted pair when it is set', () => {
    expect(() => requireGrantedTarget(remote('https://evil.example', 'GH_TOKEN'), {})).not.toThrow();
    expect(() => requireGrantedTarget(remote('https://a.example/e/x/', 'A'), { DASHCD_ALLOW_TARGETS: 'A=https://a.example/e/x' })).not.toThrow();
  });

  it('refuses another variable, another URL, or an ungranted platform variable, exit 4, saying what to add', () => {
    const env = { DASHCD_ALLOW_TARGETS: 'A=https://a.example' };
    const message = (environment: Environment): unknown => {
      try {
        requireGrantedTarget(environment, env);
      } catch (error) {
        return [(error as { exitCode: number }).exitCode, (error as Error).message];
      }
      return 'allowed';
    };
    expect(message(remote('https://a.example', 'B'))).toEqual([ExitCode.TargetUnavailable, "environment 'prod': the operator has not allowed B to be sent to https://a.example (DASHCD_ALLOW_TARGETS): add the pair to DASHCD_ALLOW_TARGETS if it is meant (nothing was sent)"]);
    expect(message(remote('https://b.example', 'A'))).toEqual([ExitCode.TargetUnavailable, "environment 'prod': the operator has not allowed A to be sent to https://b.example (DASHCD_ALLOW_TARGETS): add the pair to DASHCD_ALLOW_TARGETS if it is meant (nothing was sent)"]);
    const platform = { url: 'https://p.example', credential: { kind: 'platform-token', tokenEnv: 'P' } };
    expect(message(remote('https://a.example', 'A', platform))).toEqual([ExitCode.TargetUnavailable, "environment 'prod': the operator has not allowed P to be sent to https://p.example (DASHCD_ALLOW_TARGETS): add the pair to DASHCD_ALLOW_TARGETS if it is meant (nothing was sent)"]);
  });
});
