// The multi-instance self-test's own checks, beyond the kit: many requests of one client spread over the instances, and a webhook on another instance.
import { randomBytes } from 'node:crypto';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { deriveClientId } from 'credit402/protocol';
import { deliverEvent } from '../testing/deliver-event.ts';
import { paidFetch } from '../testing/paid-fetch.ts';

/** What the checks need to know about the deployment under test. */
export interface Deployment {
  /** The balancer: each request goes to the next instance. */
  balancerUrl: string;
  /** Requests the balancer has forwarded to each instance so far. */
  forwarded(): readonly number[];
  /** Each instance's own URL (for the requests that must reach one instance). */
  instanceUrls: readonly string[];
  emulatorUrl: string;
  emulatorControlUrl: string;
  profile: {
    serverSecret: string;
    stripePublishableKey: string;
    stripeSecretKey: string;
    stripeWebhookSecret: string;
    webhookPath: string;
  };
}

/** The verdict of one check: what was measured, and what was wrong (nothing when it passed). */
export interface CheckResult {
  name: string;
  measured: string;
  problems: string[];
  ms: number;
}

interface Card {
  paymentMethodId: string;
  clientId: string;
}

type Answer = Awaited<ReturnType<typeof paidFetch>>;

const WEATHER = 'GET /api/weather';
const NODESC = 'GET /api/nodesc';
const WEATHER_PRICE = 500;
const MIN_TOP_UP = 50_000;

async function newCard(deployment: Deployment): Promise<Card> {
  const { stripePublishableKey: publishable, stripeSecretKey: secret, serverSecret } = deployment.profile;
  const { paymentMethodId, fingerprint } = await createPaymentMethod(deployment.emulatorUrl, { publishable, secret }, uniqueCardNumber());
  return { paymentMethodId, clientId: deriveClientId(fingerprint, serverSecret) };
}

const responseOf = (answer: Answer): Record<string, unknown> => (answer.paymentResponse ?? {}) as Record<string, unknown>;
const served = (answer: Answer): boolean => answer.status === 200 && responseOf(answer).success === true;
const unavailable = (answer: Answer): boolean => answer.status === 503 && (answer.body as { errorCode?: unknown } | undefined)?.errorCode === 'service_unavailable';
const insufficient = (answer: Answer): boolean => answer.status === 402 && (answer.paymentRequired as { error?: unknown } | undefined)?.error === 'insufficient_credits';

/** The client record and transaction records in the store, as the records route of any instance reads them. */
async function records(deployment: Deployment, clientId: string): Promise<{ balance: number | undefined; topUps: number | undefined; records: Array<Record<string, unknown>> }> {
  const response = await fetch(`${deployment.balancerUrl}/_conformance/records?clientId=${clientId}`);
  const body = (await response.json()) as { client: { balances?: Record<string, number>; topUps?: number } | null; records: Array<Record<string, unknown>> };
  return { balance: body.client?.balances?.usd, topUps: body.client?.topUps, records: body.records };
}

/** The PaymentIntent creations the emulator received for `paymentMethodId`, and the distinct PaymentIntents they created. */
async function paymentIntentCreations(control: EmulatorControl, paymentMethodId: string): Promise<{ requests: number; ids: string[] }> {
  const entries = (await control.journal({ path: '/v1/payment_intents', method: 'POST' })).filter((entry) => entry.params.payment_method === paymentMethodId);
  const ids = entries
    .filter((entry) => entry.status === 200)
    .map((entry) => (entry.response as { id?: string } | null)?.id)
    .filter((id): id is string => typeof id === 'string');
  return { requests: entries.length, ids: [...new Set(ids)] };
}

/** The distinct PaymentIntents the emulator created (successfully) for `paymentMethodId`. */
async function paymentIntents(control: EmulatorControl, paymentMethodId: string): Promise<string[]> {
  return (await paymentIntentCreations(control, paymentMethodId)).ids;
}

function spread(before: readonly number[], after: readonly number[]): string {
  return after.map((count, i) => count - (before[i] ?? 0)).join('/');
}

/** Runs `tasks` with at most `width` at once. */
async function pool<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await (tasks[i] as () => Promise<T>)();
    }
  }));
  return out;
}

/**
 * `count` first payments at once with one new card, through the balancer (so spread over every instance): one
 * PaymentIntent creation at the processor (the per-client lease is in the store), every answer served or 503 (the lease
 * wait ran out, nothing charged or deducted), and the balance the one top-up minus the served prices. As in the kit's
 * CR-14.7 scenario, the processor holds the first `count` creations together for up to 1 s: a deployment whose
 * instances charged concurrently would have them all in flight then (the idempotency key alone would make them one
 * PaymentIntent; the lease makes them one request).
 */
async function concurrentFirstPayments(deployment: Deployment, control: EmulatorControl, count: number): Promise<Omit<CheckResult, 'ms'>> {
  const card = await newCard(deployment);
  await control.injectFault({ kind: 'barrier', method: 'POST', path: '/v1/payment_intents', count, delayMs: 1000, match: { payment_method: card.paymentMethodId } });
  const before = deployment.forwarded();
  const answers = await Promise.all(Array.from({ length: count }, () => paidFetch(deployment.balancerUrl, WEATHER, { paymentMethodId: card.paymentMethodId })));
  const after = deployment.forwarded();
  const servedCount = answers.filter(served).length;
  const refused = answers.filter(unavailable).length;
  const others = answers.filter((answer) => !served(answer) && !unavailable(answer)).map((answer) => answer.status);
  const { requests, ids: intents } = await paymentIntentCreations(control, card.paymentMethodId);
  const chargeIds = new Set(answers.map((answer) => responseOf(answer).chargeId).filter((id) => id !== undefined));
  const stored = await records(deployment, card.clientId);
  const expected = MIN_TOP_UP - WEATHER_PRICE * servedCount;
  const problems: string[] = [];
  if (intents.length !== 1) problems.push(`${intents.length} PaymentIntents were created for the card (${intents.join(', ')}), expected 1`);
  if (requests !== 1) problems.push(`the processor received ${requests} PaymentIntent creations for the card, expected 1 (one charge per client at a time)`);
  if (servedCount === 0) problems.push('no answer was served');
  if (others.length > 0) problems.push(`${others.length} answers neither served nor 503: statuses ${others.join(', ')}`);
  if (chargeIds.size !== 1 || ![...chargeIds].every((id) => intents.includes(String(id)))) problems.push(`the chargeIds answered were ${[...chargeIds].join(', ') || 'none'}, expected the one PaymentIntent`);
  if (stored.balance !== expected || stored.topUps !== 1) problems.push(`the store holds a balance of ${stored.balance} and ${stored.topUps} top-ups, expected ${expected} and 1`);
  return {
    name: `${count} concurrent first payments of one new card`,
    measured: `requests per instance ${spread(before, after)}; ${servedCount} served, ${refused} refused 503; ${requests} PaymentIntent creation request, ${intents.length} PaymentIntent; balance ${stored.balance} (50000 − ${servedCount} × 500), top-ups ${stored.topUps}`,
    problems,
  };
}

/** One spend of 1 unit with a request id, retried with that id while the answer is 503 (as CR-6.9 lets a client do), up to 5 times. */
async function spendOnce(url: string, clientId: string): Promise<{ answer: Answer; retries: number }> {
  const requestId = randomBytes(12).toString('hex');
  for (let retries = 0; ; retries++) {
    const answer = await paidFetch(url, NODESC, { clientId, requestId });
    if (!unavailable(answer) || retries >= 5) return { answer, retries };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A balance of `balance` units, then `count` spends of 1 unit at once through the balancer: exactly `balance` served,
 * with the creditsRemaining values `balance − 1` … 0 each once, the others the insufficient-credits challenge; the
 * store ends at 0 with one deduction record per served spend. A 503 (the store busy past its deadline) is retried
 * with its request id, so that every spend ends served or refused.
 */
async function concurrentSpends(deployment: Deployment, balance: number, count: number): Promise<Omit<CheckResult, 'ms'>> {
  const card = await newCard(deployment);
  const problems: string[] = [];
  // Fund exactly `balance`: a first payment of balance + 500 + 99 × 500 units, then 99 spends of 500 (the kit's way).
  const spends = Math.ceil((MIN_TOP_UP - balance - WEATHER_PRICE) / WEATHER_PRICE);
  const paid = await paidFetch(deployment.balancerUrl, WEATHER, { paymentMethodId: card.paymentMethodId, topUpAmount: balance + WEATHER_PRICE * (spends + 1) });
  if (!served(paid)) return { name: 'setting up a balance', measured: `first payment answered ${paid.status}`, problems: [`the first payment was not served: ${JSON.stringify(paid.body)}`] };
  await pool(Array.from({ length: spends }, () => () => paidFetch(deployment.balancerUrl, WEATHER, { clientId: card.clientId })), 10);
  const funded = await records(deployment, card.clientId);
  if (funded.balance !== balance) return { name: 'setting up a balance', measured: `balance ${funded.balance}`, problems: [`setting up a balance of ${balance} ended at ${funded.balance}`] };

  const before = deployment.forwarded();
  const results = await Promise.all(Array.from({ length: count }, () => spendOnce(deployment.balancerUrl, card.clientId)));
  const after = deployment.forwarded();
  const answers = results.map((result) => result.answer);
  const retried = results.filter((result) => result.retries > 0).length;
  const servedAnswers = answers.filter(served);
  const refused = answers.filter(insufficient).length;
  const others = answers.filter((answer) => !served(answer) && !insufficient(answer)).map((answer) => answer.status);
  const remaining = servedAnswers.map((answer) => Number(responseOf(answer).creditsRemaining)).sort((a, b) => a - b);
  const stored = await records(deployment, card.clientId);
  const deductions = stored.records.filter((record) => record.type === 'deduction' && record.resource === NODESC).length;
  if (servedAnswers.length !== balance) problems.push(`${servedAnswers.length} spends were served, expected ${balance}`);
  if (remaining.some((value, i) => value !== i)) problems.push(`the served creditsRemaining values are not 0 … ${balance - 1} each once: ${remaining.join(',')}`);
  if (others.length > 0) problems.push(`${others.length} answers neither served nor refused: statuses ${others.join(', ')}`);
  if (stored.balance !== 0) problems.push(`the store's balance is ${stored.balance}, expected 0`);
  if (deductions !== servedAnswers.length) problems.push(`${deductions} deduction records for ${NODESC}, expected ${servedAnswers.length}`);
  return {
    name: `${count} concurrent spends of 1 unit against a balance of ${balance}`,
    measured: `requests per instance ${spread(before, after)}; ${servedAnswers.length} served (creditsRemaining ${remaining[0]}…${remaining.at(-1)}, each once), ${refused} insufficient_credits, ${retried} retried after 503; balance ${stored.balance}; ${deductions} deduction records`,
    problems,
  };
}

/**
 * A first payment on instance A whose credit fails there (a store fault armed on A only) is answered 503; its
 * `payment_intent.succeeded` event, delivered to A while the fault holds, is answered 5xx; delivered to B it is
 * credited, and delivered again to the other instances it credits nothing more. Once A's store calls work again, the
 * retry on A is served from the balance B credited (no second charge), and A credits nothing on a last delivery.
 */
async function webhookOnAnotherInstance(deployment: Deployment, control: EmulatorControl): Promise<Omit<CheckResult, 'ms'>> {
  const [a, b, ...rest] = deployment.instanceUrls;
  if (a === undefined || b === undefined) throw new Error('the webhook check needs two instances');
  const { stripeWebhookSecret: secret, webhookPath } = deployment.profile;
  const card = await newCard(deployment);
  const problems: string[] = [];
  const armed = await fetch(`${a}/_conformance/store-faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: card.clientId, operation: 'creditTopUp' }) });
  if (armed.status !== 201) throw new Error(`arming the store fault on instance A answered ${armed.status}: ${await armed.text()}`);
  const first = await paidFetch(a, WEATHER, { paymentMethodId: card.paymentMethodId });
  if (!unavailable(first)) problems.push(`the first payment on A answered ${first.status} ${JSON.stringify(first.body)}, expected 503 service_unavailable`);
  const [intent] = await paymentIntents(control, card.paymentMethodId);
  if (intent === undefined) return { name: 'webhook on another instance', measured: 'no PaymentIntent', problems: [...problems, 'no PaymentIntent was created'] };
  const { event } = await control.waitForEvent((record) => record.event.type === 'payment_intent.succeeded' && (record.event.data.object as { id?: string }).id === intent);
  const statuses: string[] = [];
  const deliver = async (url: string, label: string): Promise<number> => {
    const { status } = await deliverEvent(`${url}${webhookPath}`, event, secret);
    statuses.push(`${label} ${status}`);
    return status;
  };
  if ((await deliver(a, 'A')) < 500) problems.push('the event delivered to A while its store fails the credit was not answered 5xx');
  if ((await deliver(b, 'B')) !== 200) problems.push('the event delivered to B was not acknowledged');
  for (const [i, url] of [b, ...rest].entries()) {
    if ((await deliver(url, String.fromCharCode(66 + i))) !== 200) problems.push(`the event delivered again to instance ${String.fromCharCode(66 + i)} was not acknowledged`);
  }
  const cleared = (await (await fetch(`${a}/_conformance/store-faults?clientId=${card.clientId}`, { method: 'DELETE' })).json()) as { faults: Array<{ fired: number }> };
  const fired = cleared.faults.reduce((sum, fault) => sum + fault.fired, 0);
  if (fired < 2) problems.push(`the fault on A failed ${fired} credits, expected the first payment's and the event's`);
  const retry = await paidFetch(a, WEATHER, { paymentMethodId: card.paymentMethodId });
  if (!served(retry) || responseOf(retry).creditsRemaining !== MIN_TOP_UP - WEATHER_PRICE || responseOf(retry).chargeId !== undefined) {
    problems.push(`the retry on A answered ${retry.status} ${JSON.stringify(retry.paymentResponse)}, expected served from the balance B credited: creditsRemaining 49500, no chargeId`);
  }
  if ((await deliver(a, 'A')) !== 200) problems.push('the event delivered to A once its store works was not acknowledged');
  // Read by A itself: what B credited is what A sees.
  const response = await fetch(`${a}/_conformance/records?clientId=${card.clientId}`);
  const stored = (await response.json()) as { client: { balances?: Record<string, number>; topUps?: number } | null; records: Array<Record<string, unknown>> };
  const balance = stored.client?.balances?.usd;
  const topUpRecords = stored.records.filter((record) => record.type === 'topup' && record.paymentIntentId === intent).length;
  const intents = await paymentIntentCreations(control, card.paymentMethodId);
  if (balance !== MIN_TOP_UP - WEATHER_PRICE || stored.client?.topUps !== 1 || topUpRecords !== 1) {
    problems.push(`A reads a balance of ${balance}, ${stored.client?.topUps} top-ups and ${topUpRecords} top-up records of ${intent}, expected 49500, 1 and 1`);
  }
  if (intents.ids.length !== 1 || intents.requests !== 1) problems.push(`${intents.requests} PaymentIntent creations made ${intents.ids.length} PaymentIntents, expected 1 and 1`);
  return {
    name: 'payment_intent.succeeded of a top-up whose credit failed on instance A, delivered to another instance',
    measured: `first payment on A ${first.status}; deliveries ${statuses.join(', ')}; fault on A fired ${fired}×; retry on A ${retry.status} creditsRemaining ${responseOf(retry).creditsRemaining}, chargeId ${responseOf(retry).chargeId ?? 'none'}; A reads balance ${balance}, top-up records ${topUpRecords}; PaymentIntent creations ${intents.requests}`,
    problems,
  };
}

/** Runs the three checks one after the other; a check that throws is a failed check. */
export async function runDirectChecks(deployment: Deployment): Promise<CheckResult[]> {
  const control = new EmulatorControl(deployment.emulatorControlUrl);
  const checks: Array<[string, () => Promise<Omit<CheckResult, 'ms'>>]> = [
    ['20 concurrent first payments of one new card', () => concurrentFirstPayments(deployment, control, 20)],
    ['200 concurrent spends of 1 unit against a balance of 100', () => concurrentSpends(deployment, 100, 200)],
    ['a webhook on another instance than the failed credit', () => webhookOnAnotherInstance(deployment, control)],
  ];
  const results: CheckResult[] = [];
  for (const [name, check] of checks) {
    const started = Date.now();
    try {
      results.push({ ...(await check()), ms: Date.now() - started });
    } catch (error) {
      results.push({ name, measured: 'did not complete', problems: [(error as Error).stack ?? String(error)], ms: Date.now() - started });
    }
  }
  return results;
}
