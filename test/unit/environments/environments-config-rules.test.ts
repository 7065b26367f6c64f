import { describe, expect, it } from 'vitest';
import { parseProjectConfig } from '../../../src/config/project-config.js';
import { targetUrlProblem } from '../../../src/environments/environments-config.js';

/** `path: message` of each problem in a dashcd.yaml text. */
function problems(text: string): string[] {
  return parseProjectConfig(text, 'dashcd.yaml').diagnostics.map((d) => `${d.path}: ${d.message}`);
}

describe('dashcd.yaml environments: each rule on its own', () => {
  it('asks for at least one environment under an empty environments:', () => {
    expect(problems('environments: {}\n')).toEqual(['environments: declare at least one environment, or remove environments:']);
  });

  it("names a source's bad tag pattern or branch by its dashcd.yaml key", () => {
    expect(problems('environments:\n  dev:\n    source: { tagPattern: "v?" }\n')).toEqual(["environments.dev.source: tagPattern 'v?' is not a valid git ref name"]);
    expect(problems('environments:\n  dev:\n    source: { branch: "a..b" }\n')).toEqual(["environments.dev.source: branch 'a..b' is not a valid git ref name"]);
  });

  it('refuses a token variable name holding a token prefix anywhere only when it starts with one', () => {
    const [message] = problems('environments:\n  dev:\n    target: https://h.example\n    tokenEnv: MY.dt0c01.x\n');
    expect(message).toMatch(/^environments\.dev\.tokenEnv: tokenEnv is the name of an environment variable/);
    expect(problems('environments:\n  dev:\n    target: https://h.example\n    tokenEnv: dt0c01.x\n')).toEqual([expect.stringMatching(/^environments\.dev\.tokenEnv: looks like an API token/)]);
  });

  it('looks for pasted tokens through nulls, lists and objects of values', () => {
    expect(problems('values:\n  a: null\n  b: [1, { c: null }]\nenvironments:\n  dev:\n')).toEqual([]);
  });
});

describe('targetUrlProblem', () => {
  it('accepts http and https roots and paths', () => {
    for (const url of ['https://abc.live.example.com', 'http://127.0.0.1:8080/e/x']) expect(targetUrlProblem(url), url).toBeUndefined();
  });

  it('refuses what is not a URL, another protocol, a query, a user or a password', () => {
    expect(targetUrlProblem('abc.example.com')).toBe('not a URL: "abc.example.com" (expected e.g. https://abc123.live.dynatrace.com)');
    expect(targetUrlProblem('ftp://h.example')).toBe('the target must be http or https');
    const credentials = "the target URL must not carry credentials or a query; name the secret's variable in tokenEnv";
    for (const url of ['https://h.example/?a=1', 'https://user@h.example', 'https://:secret@h.example']) expect(targetUrlProblem(url), url).toBe(credentials);
    expect(targetUrlProblem('https://u@h.example', 'platformTokenEnv')).toBe("the target URL must not carry credentials or a query; name the secret's variable in platformTokenEnv");
  });

  it('refuses a URL past 2,048 characters by its length, without quoting it', () => {
    expect(targetUrlProblem(`https://h.example/${'a'.repeat(2048 - 18)}`)).toBeUndefined();
    expect(targetUrlProblem(`https://h.example/${'/'.repeat(100_000)}x`)).toBe("a URL of 100019 characters; a target's is at most 2048");
  });
});
