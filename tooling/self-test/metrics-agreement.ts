// `npx tsx tooling/self-test/metrics-agreement.ts [--tags EXPR] [--framework F]`: runs the kit against the reference server
// with its metrics endpoint on, then scrapes it and checks that the counts agree with the run: the charges counter and
// the charged amount against the PaymentIntents the server's own Stripe traffic shows succeeded (a counting proxy
// between the server and the emulator sees every one), and the served payments against paid requests. Exits 1 when
// they disagree. The default tags pick the challenge, credits and new-payment scenarios without faults (~30 s).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from 'credit402-stripe-emulator';
import { loadServerConfig, startReferenceServer, type Framework } from 'credit402/server';
import { startCountingProxy, type CountingProxy } from '../testing/counting-proxy.ts';
import { KIT_COMMAND, REPO_ROOT } from '../testing/kit.ts';
import { scrapeMetrics, total, type Sample } from '../testing/scrape-metrics.ts';

/** Scenarios of the challenge, credits, new-payment and error paths, without injected faults or fuzzing. */
export const DEFAULT_TAGS = '(@CR-5.1 or @CR-5.3 or @CR-6.2 or @CR-6.3 or @CR-6.4 or @CR-6.9 or @CR-7.1 or @CR-7.3 or @CR-7.4 or @CR-7.16 or @CR-8.3) and not @faults and not @fuzz';

/** A succeeded PaymentIntent the server created, as the emulator answered it. */
export interface SeenIntent {
  amount: number;
  currency: string;
}

/** A proxy in front of the emulator that records every succeeded PaymentIntent in a POST answer, by id. */
export async function succeededIntentsProxy(emulatorUrl: string): Promise<CountingProxy & { intents: Map<string, SeenIntent> }> {
  const intents = new Map<string, SeenIntent>();
  const proxy = await startCountingProxy(emulatorUrl, {
    onAnswer(req, _status, body) {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/payment_intents')) return;
      try {
        const intent = JSON.parse(body.toString('utf8')) as { object?: string; id?: string; status?: string; amount?: number; currency?: string };
        if (intent.object === 'payment_intent' && intent.status === 'succeeded' && intent.id) {
          intents.set(intent.id, { amount: Number(intent.amount), currency: String(intent.currency) });
        }
      } catch {
        // not JSON: not a PaymentIntent
      }
    },
  });
  return { ...proxy, intents };
}

/** Runs the kit with `args`; resolves to its exit code. */
export function runKit(args: readonly string[]): Promise<number> {
  const [node = process.execPath, ...rest] = KIT_COMMAND;
  const child = spawn(node, [...rest, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** One comparison: the metric's value, what the run shows, and whether they agree. */
export interface Agreement {
  what: string;
  metric: number;
  run: number;
}

/** The charges, amounts and credits of the metrics against the succeeded PaymentIntents of the run. */
export function chargeAgreements(samples: readonly Sample[], intents: readonly SeenIntent[]): Agreement[] {
  const agreements: Agreement[] = [
    { what: 'charges (succeeded PaymentIntents)', metric: total(samples, 'credit402_charges_total'), run: intents.length },
    { what: 'charged minor units', metric: total(samples, 'credit402_charged_minor_units_total'), run: intents.reduce((sum, intent) => sum + intent.amount, 0) },
    { what: 'credited units (100 per minor unit charged)', metric: total(samples, 'credit402_credited_units_total'), run: intents.reduce((sum, intent) => sum + intent.amount * 100, 0) },
  ];
  for (const currency of new Set(intents.map((intent) => intent.currency))) {
    agreements.push({ what: `charges in ${currency}`, metric: total(samples, 'credit402_charges_total', { currency }), run: intents.filter((intent) => intent.currency === currency).length });
  }
  return agreements;
}

/** Runs the kit with `tags` against a reference server with metrics on; resolves the comparisons and the kit's exit code. */
export async function metricsAgreement(tags = DEFAULT_TAGS, framework: Framework = 'fastify'): Promise<{ kitExit: number; agreements: Agreement[] }> {
  const emulator = await startEmulator({ port: 0 });
  const proxy = await succeededIntentsProxy(emulator.url);
  const reports = mkdtempSync(join(tmpdir(), 'credit402-metrics-'));
  const config = loadServerConfig({
    profilePath: join(REPO_ROOT, 'harness/conformance-profile.json'),
    overrides: { host: '127.0.0.1', port: 0, framework, store: { kind: 'memory' }, stripeApi: proxy.url, conformanceControl: true, metricsPath: '/metrics' },
  });
  const server = await startReferenceServer(config);
  try {
    const declared = ['--declare', 'robustness=true', '--declare', 'capabilities=storeFaults,records'];
    const kitExit = await runKit(['conformance', '--target', server.url, '--emulator-url', emulator.url, '--tags', tags, '--reports', reports, ...declared]);
    const samples = await scrapeMetrics(`${server.url}/metrics`);
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as unknown;
    const agreements = chargeAgreements(samples, [...proxy.intents.values()]);
    const scenarios = countScenarios(report);
    process.stderr.write(`metrics-agreement: ${scenarios} scenarios run; paid requests ${total(samples, 'credit402_paid_requests_total')}, challenges ${total(samples, 'credit402_challenges_total')}, errors ${total(samples, 'credit402_errors_total')}\n`);
    return { kitExit, agreements };
  } finally {
    await server.close();
    await proxy.close();
    await emulator.close();
    rmSync(reports, { recursive: true, force: true });
  }
}

/** The number of scenarios in the kit's JSON report (cucumber's `[{ elements: [...] }]`, or a summary object). */
export function countScenarios(report: unknown): number {
  if (Array.isArray(report)) return report.reduce((sum: number, feature: { elements?: unknown[] }) => sum + (feature.elements?.length ?? 0), 0);
  return Number.NaN;
}

/** Prints one line per comparison and the summary; returns the exit code (1 when one differs or the kit failed). */
export function reportAgreements(kitExit: number, agreements: readonly Agreement[]): number {
  let failed = 0;
  for (const { what, metric, run } of agreements) {
    const ok = metric === run;
    if (!ok) failed++;
    console.log(`${ok ? 'agrees  ' : 'DIFFERS '} ${what}: metrics ${metric}, run ${run}`);
  }
  console.log(`\nthe kit exited ${kitExit}; ${agreements.length - failed} agree, ${failed} differ`);
  return failed > 0 || kitExit !== 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').at(-1) ?? '\0')) {
  const { values } = parseArgs({ options: { tags: { type: 'string' }, framework: { type: 'string' } } });
  const { kitExit, agreements } = await metricsAgreement(values.tags ?? DEFAULT_TAGS, (values.framework as Framework | undefined) ?? 'fastify');
  process.exitCode = reportAgreements(kitExit, agreements);
}
