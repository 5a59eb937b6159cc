// Handler runs: asks the target's handled route how often each request's handler ran, and judges the counts against the answers.
import type { Exchange } from './exchange.ts';
import { outcomeUnknown } from './http-client.ts';

/** The profile's default path of the handled route (`handledPath`). */
export const HANDLED_PATH = '/_conformance/handled';

/** Request ids per query of the handled route: 100 ids of 32 hex digits keep the URL near 3.3 kB. */
const IDS_PER_QUERY = 100;

/** What the handler-run counts say about a scenario's exchanges. */
export type HandlerRunsVerdict =
  | { checked: false; reason: string }
  | { checked: true; findings: string[] };

/** Whether an answer is the target's own 503 `service_unavailable` (CR-8.2): a payment error body, never a handler's. */
function isServiceUnavailable(json: unknown): boolean {
  return typeof json === 'object' && json !== null && (json as { success?: unknown }).success === false && (json as { errorCode?: unknown }).errorCode === 'service_unavailable';
}

/**
 * How many runs an exchange's answer allows: 1 when it was served, 0 when it was not, undefined when unknowable. A 5xx
 * (other than the target's 503 `service_unavailable`) to a route of `failing` (the profile's failing handlers) may be
 * its handler's failure or the target's: the scenario that sent it judges its runs itself.
 */
export function expectedRuns(exchange: Exchange, failing: ReadonlySet<string> = new Set()): 0 | 1 | undefined {
  const answer = exchange.answer;
  if (!answer) return outcomeUnknown(exchange) ? undefined : 0;
  if (answer.status >= 500 && answer.status <= 599 && !isServiceUnavailable(answer.json) && failing.has(failingKeyOf(exchange))) return undefined;
  if (answer.status < 200 || answer.status > 299) return 0;
  if (answer.paymentResponse !== undefined || exchange.request.method === 'HEAD') return 1;
  const json = answer.json;
  // A 2xx that names no route came from no profile handler (or from one that breaks the profile): nothing to expect.
  return typeof json === 'object' && json !== null && typeof (json as { route?: unknown }).route === 'string' ? 1 : undefined;
}

/** The route key an exchange names, HEAD read as GET (a HEAD request runs the GET handler). */
function failingKeyOf(exchange: Exchange): string {
  return `${exchange.request.method === 'HEAD' ? 'GET' : exchange.request.method} ${exchange.path}`;
}

/** The handled route's answer to one query: the counts, or why there are none. */
type Query = { kind: 'counts'; counts: Record<string, unknown> } | { kind: 'unchecked'; reason: string } | { kind: 'finding'; finding: string };

async function queryCounts(url: URL, timeoutMs: number): Promise<Query> {
  const label = `GET ${url.pathname}`;
  let status: number;
  let text: string;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    status = response.status;
    text = await response.text();
  } catch (error) {
    return { kind: 'unchecked', reason: `${label} could not be asked: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (status === 404) return { kind: 'unchecked', reason: `the target has no handled route: ${label} answered 404` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { kind: 'unchecked', reason: `the target has no handled route: ${label} answered ${status} without a JSON object` };
  }
  if (status !== 200) return { kind: 'finding', finding: `${label} answered ${status} instead of 200 with the handler-run counts: ${text.slice(0, 200)}` };
  return { kind: 'counts', counts: json as Record<string, unknown> };
}

/** One line naming an exchange and its outcome: `GET /api/weather → 402`. */
function outcomeOf(exchange: Exchange): string {
  const what = `${exchange.request.method} ${exchange.request.target}`;
  return exchange.answer ? `${what} → ${exchange.answer.status}` : `${what} → no answer (${exchange.error ?? 'transport error'})`;
}

/**
 * Asks the target's handled route (`GET <handledPath>?ids=…`, in as few requests as the URL length allows) how often
 * the handler ran for each exchange that carried a request id, and returns a finding for each count the answer does
 * not allow: a served answer needs exactly 1 run, any other answer (challenge, payment error, 503, transport error) 0.
 * Exchanges whose outcome the client cannot know (timed out, cut off) and answers from no profile handler are skipped.
 * A target without the handled route (404, or no JSON object) is `checked: false`. `handledPath` is the profile's.
 */
export async function checkHandlerRuns(
  targetUrl: string,
  exchanges: readonly Exchange[],
  handledPath: string = HANDLED_PATH,
  failing: ReadonlySet<string> = new Set(),
): Promise<HandlerRunsVerdict> {
  const byId = new Map<string, Exchange[]>();
  for (const exchange of new Set(exchanges)) {
    if (exchange.requestId !== undefined) byId.set(exchange.requestId, [...(byId.get(exchange.requestId) ?? []), exchange]);
  }
  // An id two requests shared counts both of them: neither count can be judged.
  const judged = [...byId].filter(([, group]) => group.length === 1).map(([id, group]) => ({ id, exchange: group[0] as Exchange }));
  const wanted = judged.map((item) => ({ ...item, expected: expectedRuns(item.exchange, failing) })).filter((item) => item.expected !== undefined);
  if (wanted.length === 0) return { checked: true, findings: [] };
  const counts = new Map<string, unknown>();
  for (let at = 0; at < wanted.length; at += IDS_PER_QUERY) {
    const url = new URL(handledPath, targetUrl);
    url.search = `?ids=${wanted.slice(at, at + IDS_PER_QUERY).map(({ id }) => encodeURIComponent(id)).join(',')}`;
    const result = await queryCounts(url, 10_000);
    if (result.kind === 'unchecked') return { checked: false, reason: result.reason };
    if (result.kind === 'finding') return { checked: true, findings: [result.finding] };
    for (const [id, runs] of Object.entries(result.counts)) counts.set(id, runs);
  }
  const findings: string[] = [];
  for (const { id, exchange, expected } of wanted) {
    const runs = counts.get(id);
    if (typeof runs !== 'number' || !Number.isSafeInteger(runs) || runs < 0) {
      findings.push(`${outcomeOf(exchange)}: the handled route gave no run count for its request id ${id} (got ${JSON.stringify(runs) ?? 'nothing'})`);
    } else if (runs !== expected) {
      const times = `${runs} ${runs === 1 ? 'time' : 'times'}`;
      findings.push(expected === 1
        ? `${outcomeOf(exchange)}: the handler ran ${times} although the request was served: it runs exactly once`
        : `${outcomeOf(exchange)}: the handler ran ${times} although the request was not served: it runs only for a served request`);
    }
  }
  return { checked: true, findings };
}

/**
 * How often the handler of one request ran, as the target's handled route reports it; a string saying why the count
 * cannot be had (no handled route, no answer) instead.
 */
export async function runsOf(targetUrl: string, requestId: string, handledPath: string = HANDLED_PATH): Promise<number | string> {
  const url = new URL(handledPath, targetUrl);
  url.search = `?ids=${encodeURIComponent(requestId)}`;
  const result = await queryCounts(url, 10_000);
  if (result.kind === 'unchecked') return result.reason;
  if (result.kind === 'finding') return result.finding;
  const runs = result.counts[requestId];
  return typeof runs === 'number' && Number.isSafeInteger(runs) && runs >= 0 ? runs : `the handled route gave no run count for request id ${requestId} (got ${JSON.stringify(runs) ?? 'nothing'})`;
}
