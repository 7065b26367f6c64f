import { describe, expect, it } from 'vitest';
import { parseProjectConfig } from '../../../src/config/project-config.js';
import { declaredEnvironments } from '../../../src/environments/environment.js';

const TOKEN = `dt0c01.${'A'.repeat(24)}.${'B'.repeat(64)}`;

function diagnosticsOf(text: string): string[] {
  return parseProjectConfig(text, 'dashcd.yaml').diagnostics.map((d) => `${d.line}:${d.col} ${d.path}: ${d.message}`);
}

const FULL = `values:
  timeframe: -2h
  mz: { id: "1", name: all }
environments:
  dev:
  staging:
    values: { timeframe: -6h }
  prod-eu:
    target: https://eu.example.com/
    tokenEnv: PROD_EU_TOKEN
    values:
      mz: { id: "9" }
  prod-us:
    target: https://us.example.com/e/abc
    tokenEnv: PROD_US_TOKEN
groups:
  production:
    environments: [prod-eu, prod-us]
    values:
      timeframe: -7d
      mz: { name: production }
`;

describe('dashcd.yaml environments', () => {
  it('reads environments, groups and values; a repository without them has none', () => {
    const { config, diagnostics } = parseProjectConfig(FULL, 'dashcd.yaml');
    expect(diagnostics).toEqual([]);
    expect(declaredEnvironments(config)).toEqual([
      { name: 'dev', target: { kind: 'embedded' }, group: null, values: { timeframe: '-2h', mz: { id: '1', name: 'all' } } },
      { name: 'staging', target: { kind: 'embedded' }, group: null, values: { timeframe: '-6h', mz: { id: '1', name: 'all' } } },
      {
        name: 'prod-eu',
        target: { kind: 'remote', url: 'https://eu.example.com', tokenEnv: 'PROD_EU_TOKEN' },
        group: 'production',
        // defaults < group < environment, objects merged member by member
        values: { timeframe: '-7d', mz: { id: '9', name: 'production' } },
      },
      {
        name: 'prod-us',
        target: { kind: 'remote', url: 'https://us.example.com/e/abc', tokenEnv: 'PROD_US_TOKEN' },
        group: 'production',
        values: { timeframe: '-7d', mz: { id: '1', name: 'production' } },
      },
    ]);
    expect(declaredEnvironments(parseProjectConfig('ignore: []\n', 'dashcd.yaml').config)).toEqual([]);
  });

  it('source: a branch or a tag pattern per environment, for daemon --repo; a bad ref name or shape is an error at its place', () => {
    const config = parseProjectConfig("environments:\n  dev:\n  prod:\n    source: { tagPattern: 'release-*' }\n", 'dashcd.yaml').config;
    expect(declaredEnvironments(config).map((e) => [e.name, e.source])).toEqual([['dev', undefined], ['prod', { tagPattern: 'release-*' }]]);
    expect(diagnosticsOf('environments:\n  prod:\n    source: { branch: "a..b" }\n')).toEqual([expect.stringMatching(/^3:13 environments\.prod\.source: branch 'a\.\.b' is not a valid git ref name$/)]);
    expect(diagnosticsOf('environments:\n  prod:\n    source: { tag: v1 }\n')).toEqual([expect.stringMatching(/^3:13 environments\.prod\.source: source is \{ branch: NAME \} or \{ tagPattern: GLOB \}$/)]);
  });

  it('accepts the short group form, a list of environments', () => {
    const { config, diagnostics } = parseProjectConfig('environments:\n  a:\n  b:\ngroups:\n  both: [a, b]\n', 'dashcd.yaml');
    expect(diagnostics).toEqual([]);
    expect(declaredEnvironments(config).map((e) => [e.name, e.group])).toEqual([['a', 'both'], ['b', 'both']]);
  });

  it('refuses a token pasted as tokenEnv, at its line and column', () => {
    expect(diagnosticsOf(`environments:\n  prod:\n    target: https://x.example.com\n    tokenEnv: ${TOKEN}\n`)).toEqual([
      '4:15 environments.prod.tokenEnv: looks like an API token: never put a token in a file; put it in an environment variable (a CI secret) and name that variable in tokenEnv',
    ]);
  });

  it('never echoes a tokenEnv that is not a variable name: it may be a secret of another shape (a platform token, a cut-off token)', () => {
    for (const secret of ['dt0s16.SHORTER.THAN.A.CLASSIC.TOKEN', 'ghp-Zx9!s3cr3t/v4lue', 'dt0c01.ABC']) {
      const [problem = ''] = diagnosticsOf(`environments:\n  prod:\n    target: https://x.example.com\n    tokenEnv: "${secret}"\n`);
      expect(problem).toMatch(/^4:15 environments\.prod\.tokenEnv: (looks like an API token|tokenEnv is the name of an environment variable)/);
      for (const part of secret.split(/[.!/-]/)) if (part.length > 3) expect(problem).not.toContain(part);
    }
  });

  it('refuses a token anywhere among the values', () => {
    expect(diagnosticsOf(`values:\n  links:\n    - "https://x/?t=${TOKEN}"\nenvironments:\n  dev:\n`)).toEqual([
      '3:7 values.links[0]: looks like an API token: never put a token in a file; put it in an environment variable (a CI secret) and name that variable in tokenEnv',
    ]);
  });

  it('needs tokenEnv with a target, and no tokenEnv without one', () => {
    expect(diagnosticsOf('environments:\n  prod:\n    target: https://x.example.com\n  dev:\n    tokenEnv: DEV_TOKEN\n')).toEqual([
      '3:5 environments.prod.tokenEnv: an environment with a target needs tokenEnv: the name of the variable that holds its token',
      '5:15 environments.dev.tokenEnv: tokenEnv without a target: an embedded environment needs no token (add target: URL for a real one)',
    ]);
  });

  it('checks the target URL and the variable name', () => {
    expect(diagnosticsOf('environments:\n  prod:\n    target: ftp://x\n    tokenEnv: "my token"\n')).toEqual([
      '3:13 environments.prod.target: the target must be http or https',
      '4:15 environments.prod.tokenEnv: tokenEnv is the name of an environment variable (letters, digits and _, e.g. PROD_DT_API_TOKEN); this value (8 characters, not shown) is not one. If it is a token, it is now in the file: revoke it and make a new one',
    ]);
  });

  it('reports group members that are not environments, and an environment in two groups', () => {
    expect(diagnosticsOf('environments:\n  a:\n  b:\ngroups:\n  one: [a, c]\n  two:\n    environments: [b, a]\n')).toEqual([
      '5:12 groups.one[1]: unknown environment c (declared: a, b)',
      '7:23 groups.two.environments[1]: a is already in group one: an environment belongs to at most one group, so its values have one order',
    ]);
  });

  it('names twenty declared environments, and lists a hundred problems and a line for the rest (60,000 and a group of 2,000 unknown made 938 MB)', () => {
    const names = Array.from({ length: 30 }, (_, i) => `e${i}`);
    const text = `environments:\n${names.map((n) => `  ${n}:\n`).join('')}groups:\n  g: [${Array.from({ length: 150 }, (_, i) => `x${i}`).join(', ')}]\n`;
    const diagnostics = diagnosticsOf(text);
    expect(diagnostics).toHaveLength(101);
    expect(diagnostics[0]).toBe(`33:7 groups.g[0]: unknown environment x0 (declared: ${names.slice(0, 20).join(', ')} and 10 more)`);
    expect(diagnostics[100]).toMatch(/^33:\d+ : and 50 more problems in this file, not listed: fix these first$/);
  });

  it('refuses a group named like an environment, and groups or values without environments', () => {
    // At the group's name, not its list.
    expect(diagnosticsOf('environments:\n  a:\ngroups:\n  a: [a]\n')).toEqual(["4:3 groups.a: a is already an environment's name; a group needs its own name"]);
    expect(diagnosticsOf('values:\n  x: 1\n')).toEqual(['2:3 values: values need environments: declare them in this file first']);
  });

  it('holds names to the folder-safe alphabet, each refusal at the name (it pointed at the value, the line below)', () => {
    expect(diagnosticsOf('environments:\n  Prod:\ngroups:\n  "eu west": [Prod]\n')).toEqual([
      '2:3 environments.Prod: an environment or group name is lowercase letters, digits and dashes (at most 63), got "Prod"',
      '4:3 groups.eu west: an environment or group name is lowercase letters, digits and dashes (at most 63), got "eu west"',
      '4:15 groups.eu west[0]: an environment or group name is lowercase letters, digits and dashes (at most 63)',
    ]);
    expect(diagnosticsOf('environments:\n  dev:\n  Prod_1:\n    target: https://abc123.live.dynatrace.com\n    tokenEnv: PROD_TOKEN\n')[0]).toMatch(/^3:3 environments\.Prod_1: /);
  });
});
