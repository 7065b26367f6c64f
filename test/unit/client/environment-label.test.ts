import { describe, expect, it } from 'vitest';
import { environmentLabel } from '../../../src/client/environment-label.js';

describe('environmentLabel', () => {
  it.each([
    ['https://abc123.live.dynatrace.com', 'abc123'],
    ['https://managed.example.com/e/prod', 'prod'],
    ['http://127.0.0.1:8080/e/staging', 'staging'],
    ['http://127.0.0.1:8080', 'local'],
    ['http://[::1]:8080', 'local'],
    ['http://localhost:8080', 'local'],
  ])('%s → %s', (url, label) => {
    expect(environmentLabel(url)).toBe(label);
  });
});
