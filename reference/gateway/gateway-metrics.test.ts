// The gateway's metrics endpoint (metricsPath): answered by the gateway itself, counting paid requests, refunds and upstream failures (CR-15.3); coded configuration errors.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { fundedClient, PRICE, useGatewayStack } from 'credit402-tooling/testing/gateway-stack';
import { REPO_ROOT, SOURCE_NODE_OPTIONS } from 'credit402-tooling/testing/kit';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { scrapeMetrics, total } from 'credit402-tooling/testing/scrape-metrics';
import { gatewayCommand } from '../cli/gateway-command.ts';

const { upstream: startUpstream, configFor, gateway } = useGatewayStack();
const FAILURES = 'credit402_gateway_upstream_failures_total';

/** The config error `load` throws, for its code and message. */
function configError(load: () => unknown): Credit402ConfigError | undefined {
  try {
    load();
  } catch (error) {
    if (error instanceof Credit402ConfigError) return error;
    throw error;
  }
  return undefined;
}

describe('gateway metrics endpoint', () => {
  it('is answered by the gateway itself (GET and HEAD, no-store; 405 otherwise), never gated or forwarded', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url, { metricsPath: '/metrics' });
    expect(running.metricsUrl).toBe(`${running.url}/metrics`);
    const response = await fetch(`${running.url}/metrics?scrape=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('payment-required')).toBeNull();
    const text = await response.text();
    expect(text).toContain('credit402_paid_requests_total');
    expect(text).toContain(`${FAILURES}{status="504"} 0`);
    const head = await fetch(`${running.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${running.url}/metrics`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(post.status).toBe(405);
    expect(upstream.seen).toEqual([]);
  });

  it('is off by default: the path is forwarded like any other', async () => {
    const upstream = await startUpstream();
    const { running } = await gateway(upstream.url);
    expect(running.metricsUrl).toBeUndefined();
    expect((await fetch(`${running.url}/metrics`)).status).toBe(200);
    expect(upstream.seen.map((seen) => seen.url)).toEqual(['/metrics']);
  });

  it('counts paid requests, and the refunds and failures of the upstream timing out (504) or refusing (502), paid or free (CR-15.3)', async () => {
    const slow = await startUpstream(1_000);
    const timingOut = await gateway(slow.url, { metricsPath: '/metrics', upstreamTimeoutMs: 100 });
    const first = await fundedClient(timingOut.store, '1');
    expect((await paidFetch(timingOut.running.url, 'GET /paid', { clientId: first.clientId })).status).toBe(200);
    expect((await paidFetch(timingOut.running.url, 'GET /slow', { clientId: first.clientId })).status).toBe(504);
    await expect.poll(first.balance, { timeout: 2_000 }).toBe(10_000 - PRICE);
    const afterTimeout = await scrapeMetrics(`${timingOut.running.url}/metrics`);
    expect(total(afterTimeout, 'credit402_paid_requests_total', { route: 'GET /paid' })).toBe(1);
    expect(total(afterTimeout, 'credit402_paid_requests_total', { route: 'GET /slow' })).toBe(1);
    expect(total(afterTimeout, 'credit402_refunds_total')).toBe(1);
    expect(total(afterTimeout, FAILURES, { status: '504' })).toBe(1);
    expect(total(afterTimeout, FAILURES, { status: '502' })).toBe(0);

    const closed = await startUpstream();
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    const refusing = await gateway(closed.url, { metricsPath: '/metrics' });
    const second = await fundedClient(refusing.store, '2');
    expect((await paidFetch(refusing.running.url, 'GET /paid', { clientId: second.clientId })).status).toBe(502);
    expect((await fetch(`${refusing.running.url}/free`)).status).toBe(502);
    await expect.poll(second.balance, { timeout: 2_000 }).toBe(10_000);
    const afterRefusal = await scrapeMetrics(`${refusing.running.url}/metrics`);
    expect(total(afterRefusal, 'credit402_paid_requests_total')).toBe(1);
    expect(total(afterRefusal, 'credit402_refunds_total')).toBe(1);
    expect(total(afterRefusal, FAILURES, { status: '502' })).toBe(2);
  });
});

describe('gateway metricsPath configuration', () => {
  const upstream = 'http://127.0.0.1:1';

  it('comes from --config, CREDIT402_METRICS_PATH or the flag, with the server\'s rules (ERR_SERVER_CONFIG)', () => {
    expect(configFor(upstream, { metricsPath: '/metrics' }).metricsPath).toBe('/metrics');
    expect(configError(() => configFor(upstream, { metricsPath: 'metrics' }))).toMatchObject({ code: 'ERR_SERVER_CONFIG', message: expect.stringMatching(/must be a path starting with \//) });
    expect(configError(() => configFor(upstream, { metricsPath: '/paid' }))).toMatchObject({ code: 'ERR_SERVER_CONFIG', message: expect.stringMatching(/collides with the route GET \/paid/) });
    expect(configError(() => configFor(upstream, { metricsPath: '/webhooks/stripe' }))).toMatchObject({ code: 'ERR_SERVER_CONFIG', message: expect.stringMatching(/collides with the webhook path/) });
  });

  it('may not take the health endpoint\'s path (ERR_GATEWAY_CONFIG)', () => {
    expect(configError(() => configFor(upstream, { metricsPath: '/healthz' }))).toMatchObject({ code: 'ERR_GATEWAY_CONFIG', message: expect.stringMatching(/collides with healthPath/) });
    expect(configError(() => configFor(upstream, { metricsPath: '/up', healthPath: '/up' }))).toMatchObject({ code: 'ERR_GATEWAY_CONFIG' });
  });

  it('is read from --metrics-path: a bad one exits 2 with the coded error', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const args = ['--upstream', upstream, '--stripe-api', 'http://127.0.0.1:9', '--store', 'memory', '--port', '0', '--metrics-path', '/healthz'];
      expect(await gatewayCommand(args)).toBe(2);
      expect(String(errors.mock.calls[0]?.[0])).toContain('ERR_GATEWAY_CONFIG: metricsPath /healthz collides with healthPath');
    } finally {
      errors.mockRestore();
    }
  });

  it('names prom-client with the command that installs it when it is missing (ERR_MISSING_PACKAGE), before starting', async () => {
    const hide = fileURLToPath(new URL('../../tooling/testing/hide-package.mjs', import.meta.url));
    const args = [...SOURCE_NODE_OPTIONS, `--import=${hide}`, `${REPO_ROOT}reference/cli.ts`, 'gateway', '--upstream', upstream, '--stripe-api', 'http://127.0.0.1:9', '--store', 'memory', '--port', '0', '--metrics-path', '/metrics'];
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, args, { env: { ...process.env, CREDIT402_HIDE_PACKAGE: 'prom-client' }, timeout: 15_000 }, (_error, _stdout, err) => resolve({ code: child.exitCode, stderr: err }));
    });
    expect(code).toBe(2);
    expect(stderr).toContain('ERR_MISSING_PACKAGE: the metrics endpoint (metricsPath, --metrics-path) needs the prom-client package, which is not installed: npm install prom-client');
  });
});
