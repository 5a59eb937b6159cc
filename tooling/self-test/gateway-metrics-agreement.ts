// `npx tsx tooling/self-test/gateway-metrics-agreement.ts [--tags EXPR]`: metrics-agreement.ts through the gateway. Runs the
// kit against the gateway (metrics on) in front of the Python profile upstream, then pays for requests that the upstream
// fails on purpose (connection dropped: 502, no answer in time: 504), scrapes the metrics and checks them against what
// was done: charges and amounts against the gateway's Stripe traffic, paid requests against the gated requests the
// upstream received, refunds against the paid ones it failed (CR-15.3), upstream failures by status. Exits 1 when
// they disagree. Counting proxies sit between the gateway and the emulator, and between the gateway and the upstream.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from 'credit402-stripe-emulator';
import { loadGatewayConfig, startGateway } from 'credit402/gateway';
import { createRouteTable, type ResolvedRoute, type RouteTable, validateRoutes } from 'credit402/gate';
import { startCountingProxy, type CountingProxy } from '../testing/counting-proxy.ts';
import { REPO_ROOT } from '../testing/kit.ts';
import { paidFetch } from '../testing/paid-fetch.ts';
import { startProfileUpstream } from '../testing/profile-upstream.ts';
import { scrapeMetrics, total } from '../testing/scrape-metrics.ts';
import { createCardPaymentMethod } from '../testing/test-cards.ts';
import { chargeAgreements, countScenarios, DEFAULT_TAGS, reportAgreements, runKit, succeededIntentsProxy, type Agreement } from './metrics-agreement.ts';

/** The request header that makes the upstream proxy fail a request: `502` drops the connection, `504` never answers. */
const FAIL_HEADER = 'x-credit402-test-upstream-fails';

/** How long the gateway waits for the upstream: the 504 request of the run waits this long. */
const UPSTREAM_TIMEOUT_MS = 4_000;

/** What the upstream proxy saw and did. */
interface UpstreamCounts {
  /** Requests of a gated route (served by the gate after a deduction, or a retry), by route key. */
  paid: Map<string, number>;
  /** Paid requests it failed: each owes a refund. */
  failedPaid: number;
  /** Requests it failed, paid or free, by the status the gateway should answer. */
  failed: { 502: number; 504: number };
}

/** The gated route key a forwarded request names, matched as the gate matches (patterns, HEAD following GET), if any. */
function gatedKey(routes: RouteTable<ResolvedRoute>, req: IncomingMessage): string | undefined {
  return routes.match(req.method ?? '', (req.url ?? '').split('?', 1)[0] ?? '')?.key;
}

/** A proxy in front of the upstream that counts gated requests and fails those carrying {@link FAIL_HEADER}. */
async function failingUpstreamProxy(upstreamUrl: string, routeKeys: RouteTable<ResolvedRoute>): Promise<CountingProxy & { counts: UpstreamCounts }> {
  const counts: UpstreamCounts = { paid: new Map(), failedPaid: 0, failed: { 502: 0, 504: 0 } };
  const proxy = await startCountingProxy(upstreamUrl, {
    onRequest(req) {
      const key = gatedKey(routeKeys, req);
      if (key !== undefined) counts.paid.set(key, (counts.paid.get(key) ?? 0) + 1);
      const fail = req.headers[FAIL_HEADER];
      if (fail !== '502' && fail !== '504') return false;
      counts.failed[fail]++;
      if (key !== undefined) counts.failedPaid++;
      // 504: hold the request until the gateway gives up (closing the proxy ends it).
      if (fail === '502') req.socket.destroy();
      return true;
    },
  });
  return { ...proxy, counts };
}

/** After the kit: one paid request by card, then paid and free requests the upstream fails; resolves to the answers' statuses. */
async function failUpstreamRequests(gatewayUrl: string, emulatorUrl: string): Promise<number[]> {
  const first = await paidFetch(gatewayUrl, 'GET /api/weather', { paymentMethodId: await createCardPaymentMethod(emulatorUrl) });
  const { clientId } = first.paymentResponse as { clientId: string };
  const failing = (status: string) => ({ [FAIL_HEADER]: status });
  const answers = await Promise.all([
    paidFetch(gatewayUrl, 'GET /api/weather', { clientId }, failing('504')),
    paidFetch(gatewayUrl, 'GET /api/weather', { clientId }, failing('502')),
    paidFetch(gatewayUrl, 'GET /api/weather', { clientId }, failing('502')),
    paidFetch(gatewayUrl, 'GET /free', undefined, failing('502')),
  ]);
  return [first.status, ...answers.map((answer) => answer.status)];
}

/**
 * Runs the kit with `tags` against the gateway, then the failing requests; resolves the comparisons, the kit's exit
 * code and the statuses of the requests after it (200 for the card payment, then 504, 502, 502 and the free 502).
 */
export async function gatewayMetricsAgreement(tags = DEFAULT_TAGS): Promise<{ kitExit: number; agreements: Agreement[]; failingAnswers: number[] }> {
  const profilePath = join(REPO_ROOT, 'harness/conformance-profile.json');
  const emulator = await startEmulator({ port: 0 });
  const stripe = await succeededIntentsProxy(emulator.url);
  const python = await startProfileUpstream(profilePath);
  const reports = mkdtempSync(join(tmpdir(), 'credit402-gateway-metrics-'));
  let upstream: Awaited<ReturnType<typeof failingUpstreamProxy>> | undefined;
  try {
    const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as { routes: Record<string, unknown> };
    upstream = await failingUpstreamProxy(python.url, createRouteTable(validateRoutes(profile.routes).values()));
    const config = loadGatewayConfig({
      profilePath,
      overrides: { upstream: upstream.url, upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS, host: '127.0.0.1', port: 0, store: { kind: 'memory' }, stripeApi: stripe.url, conformanceControl: true, metricsPath: '/metrics' },
    });
    const gateway = await startGateway(config);
    try {
      const declared = ['--declare', 'robustness=true', '--declare', 'capabilities=storeFaults,records'];
      const kitExit = await runKit(['conformance', '--target', gateway.url, '--emulator-url', emulator.url, '--tags', tags, '--reports', reports, ...declared]);
      const failingAnswers = await failUpstreamRequests(gateway.url, emulator.url);
      const samples = await scrapeMetrics(`${gateway.url}/metrics`);
      const { counts } = upstream;
      const agreements: Agreement[] = [
        ...chargeAgreements(samples, [...stripe.intents.values()]),
        { what: 'paid requests (gated requests the upstream received)', metric: total(samples, 'credit402_paid_requests_total'), run: [...counts.paid.values()].reduce((sum, n) => sum + n, 0) },
        ...[...counts.paid].map(([route, run]) => ({ what: `paid requests of ${route}`, metric: total(samples, 'credit402_paid_requests_total', { route }), run })),
        { what: 'refunds (paid requests the upstream failed)', metric: total(samples, 'credit402_refunds_total'), run: counts.failedPaid },
        { what: 'upstream failures answered 502 (connection dropped)', metric: total(samples, 'credit402_gateway_upstream_failures_total', { status: '502' }), run: counts.failed[502] },
        { what: 'upstream failures answered 504 (no answer in time)', metric: total(samples, 'credit402_gateway_upstream_failures_total', { status: '504' }), run: counts.failed[504] },
      ];
      const scenarios = countScenarios(JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as unknown);
      process.stderr.write(`gateway-metrics-agreement: ${scenarios} scenarios run, then requests answered ${failingAnswers.join(', ')}\n`);
      return { kitExit, agreements, failingAnswers };
    } finally {
      await gateway.close();
    }
  } finally {
    await upstream?.close();
    python.stop();
    await stripe.close();
    await emulator.close();
    rmSync(reports, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(`/${process.argv[1].split('/').at(-1)}`)) {
  const { values } = parseArgs({ options: { tags: { type: 'string' } } });
  const { kitExit, agreements } = await gatewayMetricsAgreement(values.tags ?? DEFAULT_TAGS);
  process.exitCode = reportAgreements(kitExit, agreements);
}
