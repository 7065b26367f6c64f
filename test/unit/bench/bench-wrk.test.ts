import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../../bench/lib/options.js';
import { parseWrkOutput, wrkScript } from '../../../bench/load/wrk.js';

describe('bench wrk load generator', () => {
  it('puts paths, bodies and headers into the request script verbatim, rotating as the undici generator does', () => {
    const script = wrkScript({ method: 'PUT', paths: ['/a', '/b'], bodies: ['{"x":"]]"}', '{}'], headers: { authorization: 'Api-Token t' } });
    expect(script).toContain('local paths = {[=====[/a]=====],\n[=====[/b]=====]}');
    expect(script).toContain('[=====[{"x":"]]"}]=====]');
    expect(script).toContain('[ [=====[authorization]=====] ] = [=====[Api-Token t]=====]');
    expect(script).toContain('wrk.format([=====[PUT]=====], paths[(i % #paths) + 1], headers, body)');
  });

  it('escapes a body with line endings (multipart CRLFs), which a long string would turn into bare newlines', () => {
    const script = wrkScript({ method: 'POST', paths: ['/a'], bodies: ['--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n\\]=====]\0' + '1\r\n--b--\r\n'], headers: {} });
    expect(script).toContain('local bodies = {"--b\\r\\nContent-Disposition: form-data; name=\\"x\\"\\r\\n\\r\\n\\\\]=====]\\0001\\r\\n--b--\\r\\n"}');
  });

  it('refuses a body that would end the Lua long string early', () => {
    expect(() => wrkScript({ method: 'PUT', paths: ['/a'], bodies: [']=====]'], headers: {} })).toThrow(/long-bracket/);
  });

  it('reads the done line: rate without non-2xx answers, latencies in ms, every error kind counted', () => {
    const out = 'Running 3s test @ http://127.0.0.1:1\n  2 threads\nWRK-RESULT {"requests":3000,"durationUs":3000000,"bytes":9000,"connect":0,"read":1,"write":0,"status":100,"timeout":2,"p50":1500,"p90":2500,"p99":9000,"max":12000,"mean":1700.5}\nRequests/sec: 1000\n';
    const result = parseWrkOutput(out);
    expect(result).toMatchObject({ requests: 3000, errors: 103, failures: { read: 1, status: 100, timeout: 2 }, elapsedMs: 3000, bytesReceived: 9000 });
    expect(result.rps).toBeCloseTo(966.67, 1);
    expect(result.latencyMs).toEqual({ count: 3000, mean: 1.7005, p50: 1.5, p90: 2.5, p99: 9, max: 12 });
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/no result line/);
  });
});

describe('bench options', () => {
  it('--out names a .json results file, and anything else is refused before a figure runs', () => {
    expect(parseBenchOptions([]).out).toBe('bench/results/latest.json');
    expect(parseBenchOptions(['--out', '/tmp/rerun-get.json']).out).toBe('/tmp/rerun-get.json');
    expect(parseBenchOptions(['--before', '6ad1603']).out).toBe('');
    expect(() => parseBenchOptions(['--out', 'bench/results/rerun-get.md'])).toThrow('--out names the JSON results file (ending in .json; the .md table is written beside it), got bench/results/rerun-get.md');
    expect(() => parseBenchOptions(['--before', '6ad1603', '--out', 'x'])).toThrow(/ending in \.json/);
  });

  it('--plan-curve replaces the plan-growth sizes and refuses anything but ascending positive counts', () => {
    expect(parseBenchOptions([]).sizes.planCurve).toEqual([100, 1000, 10_000, 20_000]);
    expect(parseBenchOptions(['--plan-curve', '100, 1000,10000']).sizes.planCurve).toEqual([100, 1000, 10_000]);
    expect(() => parseBenchOptions(['--plan-curve', '1000,100'])).toThrow(/ascending/);
    expect(() => parseBenchOptions(['--plan-curve', '1000'])).toThrow(/ascending/);
    expect(() => parseBenchOptions(['--plan-curve', '100,x'])).toThrow(/positive integer/);
  });
});
