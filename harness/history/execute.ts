// Runs one history against the target: fresh cards, each operation sent and judged by the ledger, then the balances probed and the emulator's journal reconciled.
import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { controlUrlOf, EmulatorControl } from 'credit402-stripe-emulator';
import type { JournalEntry } from 'credit402-stripe-emulator';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { ControlRoutes, type StoreFaultSpec } from '../world/control-routes.ts';
import type { ControlledUpstream } from '../world/controlled-upstream.ts';
import { newRequestId } from '../world/http-client.ts';
import { type CallOutcome, type JournalCharge, Ledger, type Observation, type Violation } from './ledger.ts';
import { type Call, CARDS, describeCall, describeOperation, type HistoryRoute, type Operation, type UpstreamFaultMode } from './operations.ts';
import { askHandled, type HistoryExchange, send } from './wire.ts';

/** The kit's controlled upstream as the histories of a gateway use it (the `gateway` capability): faults armed by request id, connections refused, what reached it. */
export type HistoryUpstream = Pick<ControlledUpstream, 'arm' | 'arrivals' | 'refuseConnections' | 'acceptConnections'>;

/** What every history of a run shares: the target, the emulator, the profile's routes and keys, the capabilities. */
export interface HistoryEnvironment {
  targetUrl: string;
  emulatorUrl: string;
  routes: readonly HistoryRoute[];
  keys: { publishable: string; secret: string };
  serverSecret: string;
  handledPath: string;
  storeFaults: boolean;
  /** Whether the target gives a failed handler's price back (declared `refundOnHandlerError`). */
  refunds: boolean;
  /** How long a store fault of mode `delay` holds the deduction (below the profile's maxStoreWaitMs). */
  faultDelayMs: number;
  requestTimeoutMs: number;
  /** The upstream the target is a gateway in front of (declared `gateway`): its faults are then drawn (CR-15.3). */
  upstream?: HistoryUpstream;
}

/** What one history did and found. */
export interface HistoryResult {
  operations: Operation[];
  exchanges: HistoryExchange[];
  /** The emulator's PaymentIntent creations of this history's cards. */
  journal: JournalEntry[];
  /** `failedOp`: the operation it failed at; `failedCard`: the card whose closing read failed. */
  violation?: Violation & { at: string; failedOp?: number; failedCard?: number };
  /** Set when the handled route is missing (handler runs unjudged) or the model stopped judging. */
  notes: string[];
  durationMs: number;
}

/** One card of a history: created at the emulator on first use, with a second payment method when asked for. */
interface HistoryCard {
  number: string;
  methods: string[];
  clientId: string;
}

/** The metadata key of the credited units on a PaymentIntent (CR-7.17). */
const TOP_UP_METADATA = 'credit402_top_up_units';

/** The pauses before the retries of a refund whose store call failed (the reference's; a target that waits longer may have its late refunds unjudged). */
const REFUND_PAUSES_MS = [250, 1_000, 1_000];

/** How long the kit waits for the answer to a request whose upstream stalls (the gateway's timeout must be shorter: PROFILE.md). */
const STALL_WAIT_MS = 30_000;

/** What the upstream did to a request, in words, and the status the gateway answers for it (CR-15.3). */
const UPSTREAM_FAILURES: Readonly<Record<Exclude<UpstreamFaultMode, 'refuse' | 'cut'>, { words: string; status: 502 | 504 }>> = {
  reset: { words: 'reset the connection', status: 502 },
  close: { words: 'closed the connection without an answer', status: 502 },
  invalid: { words: 'answered bytes that are not HTTP', status: 502 },
  stall: { words: "did not answer within the gateway's timeout", status: 504 },
};

/** Newest journal sequence number read by this process: each history reads only what is newer. */
let journalCursor = 0;

function routeOf(environment: HistoryEnvironment, key: string): HistoryRoute {
  const route = environment.routes.find((candidate) => candidate.key === key);
  if (!route) throw new Error(`the history names ${key}, which is not a route of the profile`);
  return route;
}

/** Runs `operations` against the target; resolves with the first invariant broken, if any, and the transcript. */
export async function executeHistory(operations: Operation[], environment: HistoryEnvironment): Promise<HistoryResult> {
  const startedAt = Date.now();
  const nonce = randomBytes(4).toString('hex');
  const cards: Array<HistoryCard | undefined> = [];
  const numbers: string[] = [];
  const ledger = new Ledger(CARDS, { refunds: environment.refunds });
  const control = new ControlRoutes(environment.targetUrl);
  const emulator = new EmulatorControl(controlUrlOf(environment.emulatorUrl));
  const exchanges: HistoryExchange[] = [];
  const notes: string[] = [];
  const touched = new Set<string>();
  const faulted = new Set<number>();
  let handledRoute = true;
  const since = journalCursor;

  const creating = new Map<string, Promise<string>>();
  /** A payment method of `number`, created once even when calls sent together ask for it at once. */
  const paymentMethod = (number: string, method: number, make: () => Promise<string>): Promise<string> => {
    const key = `${number} ${method}`;
    let made = creating.get(key);
    if (!made) {
      made = make();
      creating.set(key, made);
    }
    return made;
  };
  const card = async (index: number, method = 0): Promise<HistoryCard> => {
    numbers[index] ??= uniqueCardNumber();
    const number = numbers[index];
    const first = await paymentMethod(number, 0, async () => {
      const created = await createPaymentMethod(environment.emulatorUrl, environment.keys, number);
      const clientId = createHmac('sha256', Buffer.from(environment.serverSecret, 'utf8')).update(Buffer.from(created.fingerprint, 'utf8')).digest('hex');
      cards[index] = { number, methods: [created.paymentMethodId], clientId };
      return created.paymentMethodId;
    });
    const found = cards[index] as HistoryCard;
    if (method > 0) found.methods[method] = await paymentMethod(number, method, async () => (await createPaymentMethod(environment.emulatorUrl, environment.keys, number)).paymentMethodId);
    found.methods[0] = first;
    return found;
  };
  const rid = (value: number | undefined): string | undefined => (value === undefined ? undefined : `h${nonce}r${value}`);

  const request = async (call: Call): Promise<{ route: HistoryRoute; payment: Record<string, unknown> }> => {
    const route = routeOf(environment, call.route);
    const holder = await card(call.card, call.pay?.method ?? 0);
    const requestId = rid(call.rid);
    const payment: Record<string, unknown> = call.pay
      ? { paymentMethodId: holder.methods[call.pay.method], ...(call.pay.topUp === undefined ? {} : { topUpAmount: call.pay.topUp }) }
      : { clientId: holder.clientId };
    if (requestId !== undefined) payment.requestId = requestId;
    touched.add(`${call.card} ${route.currency}`);
    return { route, payment };
  };

  /** Classifies an answer and checks its handler runs (CR-1.1, CR-4.6); the check's violation, if any. */
  const judge = (exchange: HistoryExchange, route: HistoryRoute, label: string): { outcome: CallOutcome } | { violation: Violation } => {
    const successful = exchange.paymentResponse?.success === true;
    const runs = exchange.handled;
    const failingAnswer = route.failing !== undefined && exchange.status !== undefined && exchange.status >= 500 && exchange.errorCode !== 'service_unavailable';
    if (runs !== undefined && runs > 1) return { violation: { ids: ['CR-1.1'], message: `${label}: its handler ran ${runs} times; a served request's handler runs once` } };
    if (exchange.status === undefined) return { outcome: 'unknown' };
    const servedAnswer = (exchange.status >= 200 && exchange.status < 300 && successful) || (failingAnswer && successful);
    if (runs === 1) {
      if (!servedAnswer && !failingAnswer && !(exchange.status >= 200 && exchange.status < 300)) {
        return { violation: { ids: ['CR-4.6'], message: `${label}: answered ${exchange.status}${exchange.errorCode ? ` ${exchange.errorCode}` : ''}, and its handler ran although the request was not served` } };
      }
      return { outcome: 'served' };
    }
    if (runs === 0 && servedAnswer) return { violation: { ids: ['CR-1.1'], message: `${label}: answered ${exchange.status} with a successful payment-response, but its handler never ran` } };
    if (runs === undefined && servedAnswer) return { outcome: 'served' };
    if (runs === undefined && failingAnswer) return { outcome: 'unknown' };
    if (exchange.status === 402 && exchange.challenge) return { outcome: 'challenge' };
    if (exchange.status === 402 && exchange.errorCode === 'invalid_payment') return { outcome: 'invalid' };
    if (exchange.status === 503 && exchange.errorCode === 'service_unavailable') return { outcome: 'unavailable' };
    return { outcome: 'refused' };
  };

  /**
   * How a gateway's exchange reads once its upstream fault is known (CR-15.3): a 502 or 504 is the gateway's own answer
   * to an upstream that gave none; a cut answer was served (its head's `payment-response`, when one came); a fault met
   * with another answer breaks CR-15.3. Undefined: as judged.
   */
  const throughGateway = (exchange: HistoryExchange, fault: UpstreamFaultMode | undefined, label: string): { outcome: CallOutcome; response?: Record<string, unknown> } | Violation | undefined => {
    const upstream = environment.upstream;
    if (!upstream) return undefined;
    const met = fault !== undefined && fault !== 'refuse' && upstream.arrivals(exchange.requestId).some((arrival) => arrival.fault === fault);
    if (met && fault === 'cut') {
      if (exchange.status !== undefined) return undefined;
      const head = exchange.head?.paymentResponse;
      return head?.success === true ? { outcome: 'served', response: head } : { outcome: 'servedUnseen' };
    }
    if (met && fault !== 'cut' && exchange.status !== UPSTREAM_FAILURES[fault].status) {
      const { words, status } = UPSTREAM_FAILURES[fault];
      const got = exchange.status === undefined ? `got no answer (${exchange.error ?? 'none'})` : `answered ${exchange.status}`;
      return { ids: ['CR-15.3'], message: `${label}: ${got} when its upstream ${words}: the gateway answers ${status} itself, and gives the price back` };
    }
    if (exchange.status === 502 || exchange.status === 504) return { outcome: 'upstreamFailed' };
    return undefined;
  };

  /** The ledger's observation of one exchange, or the handler-run, identity or gateway check it fails. */
  const observation = (exchange: HistoryExchange, call: Call | undefined, route: HistoryRoute, label: string, cardIndex: number, malformed = false, fault?: UpstreamFaultMode): Observation | Violation => {
    const judged = judge(exchange, route, label);
    if ('violation' in judged) return judged.violation;
    const gateway = throughGateway(exchange, fault, label);
    if (gateway && 'ids' in gateway) return gateway;
    const outcome = gateway?.outcome ?? judged.outcome;
    const response = gateway ? gateway.response : exchange.paymentResponse;
    const credits = response?.creditsRemaining;
    const chargeId = response?.chargeId;
    const holder = cards[cardIndex];
    if (outcome === 'served' && response?.success === true && holder && response.clientId !== holder.clientId) {
      return { ids: [call?.pay ? 'CR-7.3' : 'CR-6.2'], message: `${label}: served with clientId ${String(response.clientId)}, not the card's ${holder.clientId}` };
    }
    const payment = exchange.payment ?? {};
    return {
      label,
      card: cardIndex,
      route: route.key,
      price: route.price,
      currency: route.currency,
      ...(typeof payment.requestId === 'string' ? { rid: payment.requestId } : {}),
      ...(call?.pay ? { topUp: call.pay.topUp ?? route.minTopUp } : {}),
      ...(malformed ? { malformed } : {}),
      ...(route.failing ? { failing: true } : {}),
      outcome,
      ...(Number.isSafeInteger(credits) && outcome === 'served' ? { creditsRemaining: credits as number } : {}),
      ...(typeof chargeId === 'string' && outcome === 'served' ? { chargeId } : {}),
    };
  };

  const finish = async (violation?: Violation, at?: string, failedOp?: number, failedCard?: number): Promise<HistoryResult> => {
    const journal = await paymentIntents(emulator, since, cards);
    const found = violation ? { violation: { ...violation, at: at ?? '', ...(failedOp === undefined ? {} : { failedOp }), ...(failedCard === undefined ? {} : { failedCard }) } } : {};
    return { operations, exchanges, journal, ...found, notes, durationMs: Date.now() - startedAt };
  };
  const asked = async (batch: HistoryExchange[]): Promise<void> => {
    if (handledRoute && !(await askHandled(environment.targetUrl, environment.handledPath, batch))) {
      handledRoute = false;
      notes.push(`the target has no handled route (${environment.handledPath}): handler runs were not judged`);
    }
  };

  /** The upstream faults armed for the next forwarded request of a card on a route, oldest first. */
  const upstreamFaults: Array<{ card: number; route: string; mode: UpstreamFaultMode }> = [];

  for (const [index, operation] of operations.entries()) {
    const label = `op ${index} (${describeOperation(operation)})`;
    if (operation.op === 'upstream') {
      if (environment.upstream) upstreamFaults.push({ card: operation.card, route: operation.route, mode: operation.mode });
      continue;
    }
    if (operation.op === 'fault') {
      if (!environment.storeFaults) continue;
      const holder = await card(operation.card);
      // A refund of a failed handler's price is an addBalance call (PROFILE.md, Capabilities).
      const spec: StoreFaultSpec = { clientId: holder.clientId, operation: operation.refund ? 'addBalance' : 'deductBalance', count: 1 };
      if (operation.mode === 'replyLost') spec.replyLost = true;
      if (operation.mode === 'delay') spec.delayMs = environment.faultDelayMs;
      await control.armStoreFault(spec);
      faulted.add(operation.card);
      if (operation.refund) ledger.refundFaulted(operation.card);
      else ledger.faulted(operation.card);
      continue;
    }
    if (operation.op === 'malformed') {
      const route = environment.routes.find((candidate) => candidate.method === 'POST' && candidate.failing === undefined);
      if (!route) continue;
      const holder = await card(operation.card);
      touched.add(`${operation.card} ${route.currency}`);
      const payment: Record<string, unknown> = { clientId: holder.clientId, ...(operation.rid === undefined ? {} : { requestId: rid(operation.rid) }) };
      const exchange = await send(environment.targetUrl, { method: route.method, target: route.path, payment, body: '{"text": "unterminated' }, index, startedAt, environment.requestTimeoutMs);
      exchanges.push(exchange);
      await asked([exchange]);
      const seen = observation(exchange, undefined, route, label, operation.card, true);
      const violation = 'ids' in seen ? seen : ledger.observe(seen);
      if (violation) return finish(violation, label, index);
      continue;
    }
    const calls = operation.op === 'call' ? [operation.call] : operation.op === 'burst' ? operation.calls : Array.from({ length: operation.count }, (): Call => ({ card: operation.card, route: operation.route }));
    const prepared = await Promise.all(calls.map(request));
    const faults = armUpstreamFaults(environment.upstream, upstreamFaults, calls);
    const refusing = faults.modes.includes('refuse');
    if (refusing) await environment.upstream?.refuseConnections();
    let batch: HistoryExchange[];
    try {
      batch = await Promise.all(
        prepared.map(({ route, payment }, at) => {
          const timeoutMs = faults.modes[at] === 'stall' ? Math.max(STALL_WAIT_MS, environment.requestTimeoutMs) : environment.requestTimeoutMs;
          return send(environment.targetUrl, { method: route.method, target: route.path, payment, requestId: faults.requestIds[at] as string }, index, startedAt, timeoutMs);
        }),
      );
    } finally {
      if (refusing) await environment.upstream?.acceptConnections();
    }
    exchanges.push(...batch);
    await asked(batch);
    const seen = batch.map((exchange, at) => {
      const call = calls[at] as Call;
      // While the upstream refused connections, every request of the batch it was sent met the refusal.
      const fault = refusing ? 'refuse' : faults.modes[at];
      return observation(exchange, call, (prepared[at] as { route: HistoryRoute }).route, calls.length === 1 ? label : `op ${index}.${at} (${describeCall(call)})`, call.card, false, fault);
    });
    const failed = seen.find((item): item is Violation => 'ids' in item);
    if (failed) return finish(failed, label, index);
    const observations = seen as Observation[];
    const violation = calls.length === 1 ? ledger.observe(observations[0] as Observation) : ledger.observeTogether(observations);
    if (violation) return finish(violation, label, index);
  }

  // The store is back: faults removed, the refunds owed given time to land (a failed one is retried within about two
  // seconds), then each balance the history touched read by a spend on its cheapest route.
  // A held call fails without touching the store, so nothing it does shows later; but a failed refund attempt is
  // retried in the background (the reference: after 250 ms, then 1 s more, a held attempt bounded by the target's
  // wait for its store): what lands then, or must not, shows in the closing reads.
  let refundsFailed = 0;
  let refundHeld = false;
  for (const index of faulted) {
    const cleared = await control.clearStoreFaults((cards[index] as HistoryCard).clientId);
    for (const fault of cleared.filter((each) => each.operation === 'addBalance')) {
      refundsFailed += fault.fired;
      if (fault.delayMs !== undefined && fault.fired > 0) refundHeld = true;
    }
  }
  const retries = refundsFailed === 0 ? 0 : REFUND_PAUSES_MS.slice(0, refundsFailed).reduce((sum, pause) => sum + pause, 0) + 200 + (refundHeld ? environment.faultDelayMs : 0);
  const settling = Math.max(retries, ledger.refundsPending ? 150 : 0);
  if (settling > 0) await sleep(settling);
  ledger.giveBacksLanded();
  for (const key of touched) {
    const [cardText, currency] = key.split(' ');
    const cardIndex = Number(cardText);
    const route = [...environment.routes].filter((candidate) => candidate.currency === currency && candidate.failing === undefined && candidate.method === 'GET').sort((a, b) => a.price - b.price)[0]
      ?? [...environment.routes].filter((candidate) => candidate.currency === currency && candidate.failing === undefined).sort((a, b) => a.price - b.price)[0];
    const holder = cards[cardIndex];
    if (!route || !holder) continue;
    const label = `the closing read of card ${cardIndex}'s ${currency} balance (a spend on ${route.key})`;
    const exchange = await send(environment.targetUrl, { method: route.method, target: route.path, payment: { clientId: holder.clientId } }, 'probe', startedAt, environment.requestTimeoutMs);
    exchanges.push(exchange);
    await asked([exchange]);
    const seen = observation(exchange, undefined, route, label, cardIndex);
    const violation = 'ids' in seen ? seen : ledger.observe(seen);
    if (violation) return finish(violation, label, undefined, cardIndex);
  }
  const result = await finish();
  const charges: JournalCharge[] = [];
  for (const entry of result.journal) {
    const intent = entry.response as { id?: unknown; status?: unknown; currency?: unknown; metadata?: Record<string, unknown> } | null;
    const cardIndex = cards.findIndex((holder) => holder !== undefined && intent?.metadata !== undefined && Object.values(intent.metadata).includes(holder.clientId));
    if (intent?.status !== 'succeeded' || typeof intent.id !== 'string' || cardIndex < 0 || charges.some((charge) => charge.id === intent.id)) continue;
    charges.push({ card: cardIndex, id: intent.id, currency: String(intent.currency), units: Number(intent.metadata?.[TOP_UP_METADATA] ?? Number.NaN) });
  }
  const violation = ledger.reconcile(charges);
  if (ledger.gaveUp) notes.push(ledger.gaveUp);
  return violation ? { ...result, violation: { ...violation, at: "the end: the emulator's journal against the credits" } } : result;
}

/**
 * The request ids of a batch of `calls` and the upstream fault each meets: the oldest armed for its card and route
 * (each fault meets one call), armed at the upstream on its request id, except a refusal, which the batch meets whole.
 */
function armUpstreamFaults(upstream: HistoryUpstream | undefined, armed: Array<{ card: number; route: string; mode: UpstreamFaultMode }>, calls: readonly Call[]): { requestIds: string[]; modes: Array<UpstreamFaultMode | undefined> } {
  const requestIds = calls.map(() => newRequestId());
  const modes = calls.map((call, at): UpstreamFaultMode | undefined => {
    const found = upstream ? armed.findIndex((fault) => fault.card === call.card && fault.route === call.route) : -1;
    if (found < 0) return undefined;
    const [fault] = armed.splice(found, 1);
    if (fault && fault.mode !== 'refuse') upstream?.arm(requestIds[at] as string, fault.mode);
    return fault?.mode;
  });
  return { requestIds, modes };
}

/** The PaymentIntent creations of the history's cards in the journal after `since`, once none is in flight. */
async function paymentIntents(emulator: EmulatorControl, since: number, cards: ReadonlyArray<HistoryCard | undefined>): Promise<JournalEntry[]> {
  const deadline = Date.now() + 15_000;
  while ((await emulator.inFlight()).count > 0 && Date.now() < deadline) await sleep(20);
  const entries = await emulator.journal({ method: 'POST', path: '/v1/payment_intents', since });
  for (const entry of entries) journalCursor = Math.max(journalCursor, entry.seq);
  const ids = cards.filter((holder): holder is HistoryCard => holder !== undefined).map((holder) => holder.clientId);
  return entries.filter((entry) => ids.some((id) => JSON.stringify(entry.params).includes(id)));
}
