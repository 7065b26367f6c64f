import { describe, expect, it } from 'vitest';
import { parseTargetUrl } from '../../../src/cli/target.js';

describe('parseTargetUrl', () => {
  it.each([
    ['https://abc123.live.dynatrace.com', 'https://abc123.live.dynatrace.com'],
    ['https://abc123.live.dynatrace.com/', 'https://abc123.live.dynatrace.com'],
    ['http://127.0.0.1:8080/e/local/', 'http://127.0.0.1:8080/e/local'],
  ])('keeps an environment root %s as %s', (raw, root) => {
    expect(parseTargetUrl(raw)).toBe(root);
  });

  it.each([
    ['http://127.0.0.1:8080/e/local/api/config/v1', 'http://127.0.0.1:8080/e/local'],
    ['http://127.0.0.1:8080/e/local/api/config/v1/', 'http://127.0.0.1:8080/e/local'],
    ['https://abc123.live.dynatrace.com/api/v2', 'https://abc123.live.dynatrace.com'],
    ['https://host.example/e/prod/api/v1', 'https://host.example/e/prod'],
    ['https://host.example/e/prod/api', 'https://host.example/e/prod'],
    ['http://127.0.0.1:8080/e/local/api/v2/events', 'http://127.0.0.1:8080/e/local'],
    ['https://abc123.live.dynatrace.com/api/config/v1/dashboards/', 'https://abc123.live.dynatrace.com'],
  ])('cuts a pasted API base %s back to the environment root %s', (raw, root) => {
    expect(parseTargetUrl(raw)).toBe(root);
  });

  it('leaves a path that only contains "api" elsewhere alone', () => {
    expect(parseTargetUrl('https://host.example/e/api-prod')).toBe('https://host.example/e/api-prod');
    expect(parseTargetUrl('https://host.example/e/events')).toBe('https://host.example/e/events');
    expect(parseTargetUrl('https://host.example/e/prod/api/events')).toBe('https://host.example/e/prod/api/events');
  });
});
