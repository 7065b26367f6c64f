import { describe, expect, it } from 'vitest';
import { renderEnvironmentsMarkdown } from '../../../src/cli/render/render-environments.js';

describe('the plan over environments, as a pull request comment', () => {
  it("mentions no one through an environment's target or a target's error", () => {
    const markdown = renderEnvironmentsMarkdown([
      { name: 'dev', target: 'https://h.example/e/@acme/oncall', status: 'unreachable', error: 'could not reach it: ask @octocat' },
      { name: 'prod', target: 'https://p.example', status: 'not-planned', error: 'PROD_TOKEN is unset (@ops-team)' },
    ]);
    expect(markdown).not.toMatch(/@(?!&#8203;)[A-Za-z0-9]/);
    expect(markdown).toContain('@&#8203;acme/oncall');
    expect(markdown).toContain('ask @&#8203;octocat');
    expect(markdown).toContain('(@&#8203;ops-team)');
  });
});
