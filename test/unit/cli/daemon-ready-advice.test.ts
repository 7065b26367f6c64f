import { describe, expect, it } from 'vitest';
import { dashcdCommand, readyBanner } from '../../../src/cli/commands/daemon.js';

describe('the daemon’s advice on making a lasting token', () => {
  it('under npm start (no dashcd on PATH yet) advises npx dashcd, which finds the checkout’s own; elsewhere dashcd', () => {
    expect(dashcdCommand({ npm_lifecycle_event: 'start' })).toBe('npx dashcd');
    expect(dashcdCommand({ npm_lifecycle_event: 'test' })).toBe('dashcd');
    expect(dashcdCommand({})).toBe('dashcd');
    const banner = readyBanner({ statusUrl: 'http://127.0.0.1:8080', target: 'dev', api: { url: 'http://127.0.0.1:8080', envUrl: 'http://127.0.0.1:8080/e/dev', token: 't' } }, 'npx dashcd');
    expect(banner).toContain('make lasting ones with: npx dashcd token create --env dev --scopes ReadConfig');
  });
});
