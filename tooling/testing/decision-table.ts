// Test helper: runs one row of an engine decision table (a gate over a ScriptedStore and a FakeProcessor, no sockets) and checks it.
import { expect } from 'vitest';
import { createGate, type GateDecision, type GateOptions, type ServeOutcome } from 'credit402/gate';
import { decodeBase64Json, encodeBase64Json, type PaymentRequiredResponse, type PaymentResponse, type RouteConfig } from 'credit402/protocol';
import type { ChargeRequest } from 'credit402';
import type { MemoryStore, TopUpCredit, TransactionRecord } from 'credit402/stores';
import { CARDS, MASTERCARD_FINGERPRINT, PUBLISHABLE_KEY, ROUTES, SERVER_SECRET, VISA_FINGERPRINT } from './decision-fixtures.ts';
import { FakeProcessor, type FakeProcessorSetup, type ProcessorMethod } from './fake-processor.ts';
import { ScriptedStore, type StoreFault, type StoreMethod } from './scripted-store.ts';

/** Gate options a row may set; the rest are the tables' own. */
type RowOptions = Partial<
  Pick<
    GateOptions,
    'serverSecret' | 'serviceName' | 'storeTimeoutMs' | 'lockWaitMs' | 'lockTtlMs' | 'requestIdTtlMs' | 'refundOnHandlerError' | 'newPaymentRateLimit'
  >
>;

/** The world before the request. */
export interface Setup {
  routes?: Record<string, RouteConfig>;
  options?: RowOptions;
  /** Balances per client and currency, added before the gate exists. */
  balances?: Record<string, Record<string, number>>;
  /** Top-ups credited before the gate exists (they count in `topUps`). */
  credited?: TopUpCredit[];
  /** Anything else the store should hold first. */
  seed?: (store: MemoryStore) => Promise<unknown>;
  /** The fake processor's behaviour; its cards are added to the tables' cards. */
  processor?: Omit<FakeProcessorSetup, 'onCall'>;
  /** Store calls that fail, hang, lose their reply or let something happen in between. */
  faults?: StoreFault[];
  /** The payment lease of a client, held by another request; released after `releaseAfterMs`, once it credited `credit`. */
  lease?: { clientId: string; releaseAfterMs?: number; credit?: TopUpCredit };
  /** Requests sent to the same gate first (their decisions are not checked or settled). */
  before?: TableRequest[];
}

/** A request as an adapter hands it to the gate. */
export interface TableRequest {
  /** Default `GET`. */
  method?: string;
  /** Default `/api/weather`. */
  url?: string;
  /** The payload, sent base64-encoded as the `payment` header. */
  payment?: object;
  /** A raw `payment` header value (or lines), sent instead of `payment`. */
  header?: string | string[];
  clientAddress?: string;
  /** After a serve decision, the outcome the adapter reports to its `settle`. */
  settle?: ServeOutcome;
}

/** What the gate must decide. */
interface ExpectedDecision {
  action: 'pass' | 'serve' | 'respond';
  status?: number;
  /** The body's `errorCode` (a PaymentResponse) or `error` (a challenge or a 400). */
  code?: string;
  /** The body's `error` message (a PaymentResponse) or `message` (a challenge or a 400): equal, or matching. */
  message?: string | RegExp;
  /** Header values (exact or matching); `null`: absent. */
  headers?: Record<string, string | RegExp | null>;
  /** The decoded `payment-response` of a serve decision, exactly. */
  payment?: PaymentResponse;
  /** The decoded `payment-required` of a challenge (also its body), exactly. */
  challenge?: PaymentRequiredResponse;
  /** The body, exactly. */
  body?: unknown;
  /** Bounds of the time `handle` took, in ms. */
  ms?: { atLeast?: number; below?: number };
}

/** The store after the request (and its settle). */
interface ExpectedStore {
  /** Store methods called through the gate, in order; `[]`: the store was not touched. */
  calls?: StoreMethod[];
  /** Per client: its balances and top-up count, or null for no record. */
  clients?: Record<string, { balances: Record<string, number>; topUps: number } | null>;
  /** Per client: its transaction log, each record matching. */
  records?: Record<string, Array<Partial<TransactionRecord>>>;
}

/** The processor journal after the request. */
interface ExpectedProcessor {
  /** Methods called, in order; `[]`: no processor call. */
  calls: ProcessorMethod[];
  /** Each charge's parameters, matching. */
  charges?: Array<Partial<ChargeRequest>>;
  /** How many customers were created. */
  createdCustomers?: number;
}

/** One row of a decision table. Its title starts with the requirement IDs it checks. */
export interface Row {
  title: string;
  setup?: Setup;
  request: TableRequest;
  decision: ExpectedDecision;
  store?: ExpectedStore;
  processor: ExpectedProcessor;
  /** Every store and processor call of the row, `store.<method>` / `processor.<method>`, in order. */
  steps?: string[];
  /** Stages the gate reported to `onError`, in order. */
  reported?: string[];
}

/** The secrets no answer may carry (CR-10.5). */
const SECRETS = [SERVER_SECRET, VISA_FINGERPRINT, MASTERCARD_FINGERPRINT];

function encoded(request: TableRequest): string | string[] | undefined {
  if (request.header !== undefined) return request.header;
  return request.payment === undefined ? undefined : encodeBase64Json(request.payment);
}

/** Holds a client's payment lease as another request would; resolves when that request is done with it. */
async function holdLease(store: MemoryStore, lease: NonNullable<Setup['lease']>): Promise<Promise<void>> {
  const name = `payment:${lease.clientId}`;
  const token = await store.acquireLock(name, 60_000);
  if (token === null) throw new Error('the lease is already held');
  const { releaseAfterMs, credit } = lease;
  if (releaseAfterMs === undefined) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    setTimeout(() => {
      (async () => {
        if (credit !== undefined) await store.creditTopUp(credit);
        await store.releaseLock(name, token);
      })().then(resolve, reject);
    }, releaseAfterMs);
  });
}

/** Builds the row's world, sends its earlier requests and then its request; resolves to the decision and the world. */
async function runRow(row: Row) {
  const { setup = {}, request } = row;
  const steps: string[] = [];
  const reported: string[] = [];
  const store = new ScriptedStore(setup.faults, (step) => steps.push(step));
  for (const [clientId, balances] of Object.entries(setup.balances ?? {})) {
    for (const [currency, amount] of Object.entries(balances)) await store.inner.addBalance(clientId, currency, amount);
  }
  for (const credit of setup.credited ?? []) await store.inner.creditTopUp(credit);
  await setup.seed?.(store.inner);
  const holder = setup.lease === undefined ? Promise.resolve() : await holdLease(store.inner, setup.lease);
  const processor = new FakeProcessor({ ...setup.processor, cards: { ...CARDS, ...setup.processor?.cards }, onCall: (step) => steps.push(step) });
  const gate = createGate({
    stripePublishableKey: PUBLISHABLE_KEY,
    serverSecret: SERVER_SECRET,
    store,
    processor,
    routes: setup.routes ?? ROUTES,
    lockWaitMs: 100,
    onError: (_error, stage) => void reported.push(stage),
    ...setup.options,
  });
  const send = (sent: TableRequest) =>
    gate.handle({ method: sent.method ?? 'GET', url: sent.url ?? '/api/weather', paymentHeader: encoded(sent), clientAddress: sent.clientAddress });
  for (const earlier of setup.before ?? []) await send(earlier);
  const started = performance.now();
  const decision = await send(request);
  const ms = performance.now() - started;
  if (request.settle !== undefined && decision.action === 'serve') await decision.settle(request.settle);
  await holder;
  return { decision, ms, store, processor, steps, reported };
}

function decodedHeader(decision: GateDecision, name: string): unknown {
  const value = decision.action === 'pass' ? undefined : decision.headers[name];
  if (value === undefined) return undefined;
  const decoded = decodeBase64Json(value);
  if (!decoded.ok) throw new Error(`${name} is not base64 JSON: ${value}`);
  return decoded.value;
}

/** What every gated answer owes whatever the row (CR-3.2, CR-3.13, CR-5.1, CR-8.1, CR-8.2, CR-10.5). */
function checkInvariants(decision: GateDecision): void {
  expect(SECRETS.filter((secret) => JSON.stringify(decision).includes(secret)), 'secrets in the decision').toEqual([]);
  if (decision.action === 'pass') return;
  for (const value of Object.values(decision.headers)) expect(value).toMatch(/^[\x20-\x7e]*$/);
  if (decision.action === 'serve') {
    expect(decodedHeader(decision, 'payment-response')).toEqual(decision.payment);
  } else if (decision.status !== 400) {
    expect(decision.headers['content-type']).toMatch(/^application\/json/);
    const required = decodedHeader(decision, 'payment-required');
    if (required !== undefined) expect(required).toEqual(decision.body);
    if (required === undefined) expect(Object.keys(decision.body as object).sort()).toEqual(['clientId', 'creditsRemaining', 'error', 'errorCode', 'success']);
    expect(decision.headers['payment-response']).toBeUndefined();
  }
  if (decision.action === 'serve' || decision.status !== 400) {
    expect(decision.headers['cache-control']).toBe('no-store');
    expect(decision.headers.vary).toMatch(/\bpayment\b/);
  }
}

/** A string is compared exactly, a RegExp matched. */
function expectText(actual: unknown, expected: string | RegExp, what: string): void {
  if (typeof expected === 'string') expect(actual, what).toBe(expected);
  else expect(actual, what).toMatch(expected);
}

function checkDecision(expected: ExpectedDecision, decision: GateDecision, ms: number): void {
  expect(decision.action).toBe(expected.action);
  checkInvariants(decision);
  if (expected.ms?.atLeast !== undefined) expect(ms).toBeGreaterThanOrEqual(expected.ms.atLeast);
  if (expected.ms?.below !== undefined) expect(ms).toBeLessThan(expected.ms.below);
  if (decision.action === 'pass') return;
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    if (value === null) expect(decision.headers[name], name).toBeUndefined();
    else expectText(decision.headers[name], value, name);
  }
  if (decision.action === 'serve') {
    if (expected.payment !== undefined) expect(decision.payment).toEqual(expected.payment);
    return;
  }
  if (expected.status !== undefined) expect(decision.status).toBe(expected.status);
  if (expected.body !== undefined) expect(decision.body).toEqual(expected.body);
  if (expected.challenge !== undefined) expect(decodedHeader(decision, 'payment-required')).toEqual(expected.challenge);
  const body = decision.body as { errorCode?: unknown; error?: unknown; message?: unknown };
  const isPaymentResponse = 'errorCode' in body;
  if (expected.code !== undefined) expect(isPaymentResponse ? body.errorCode : body.error).toBe(expected.code);
  if (expected.message !== undefined) expectText(isPaymentResponse ? body.error : body.message, expected.message, 'message');
}

async function checkStore(expected: ExpectedStore, store: ScriptedStore): Promise<void> {
  if (expected.calls !== undefined) expect(store.calls, 'store calls').toEqual(expected.calls);
  for (const [clientId, client] of Object.entries(expected.clients ?? {})) {
    const record = await store.inner.getClient(clientId);
    expect(record === null ? null : { balances: record.balances, topUps: record.topUps }, `client ${clientId.slice(0, 8)}…`).toEqual(client);
  }
  for (const [clientId, records] of Object.entries(expected.records ?? {})) {
    expect((await store.inner.listTransactions?.(clientId)) ?? [], `records of ${clientId.slice(0, 8)}…`).toMatchObject(records);
  }
}

/** Runs a row and checks its decision, store, processor journal, steps and reports. */
export async function checkRow(row: Row): Promise<void> {
  const { decision, ms, store, processor, steps, reported } = await runRow(row);
  checkDecision(row.decision, decision, ms);
  await checkStore(row.store ?? {}, store);
  expect(processor.methods, 'processor calls').toEqual(row.processor.calls);
  if (row.processor.charges !== undefined) expect(processor.charges, 'charges').toMatchObject(row.processor.charges);
  if (row.processor.createdCustomers !== undefined) expect(processor.createdCustomers).toHaveLength(row.processor.createdCustomers);
  if (row.steps !== undefined) expect(steps, 'steps').toEqual(row.steps);
  if (row.reported !== undefined) expect(reported, 'reported').toEqual(row.reported);
}

/** The rows as `[title, row]` pairs, for `it.each(titled(rows))('%s', (_title, row) => checkRow(row))`: titles printed as written. */
export function titled(rows: readonly Row[]): Array<[string, Row]> {
  return rows.map((row) => [row.title, row]);
}

/**
 * The set-up of a retry whose first attempt (`firstPayment`) failed to credit its charge
 * `pi_fake_1` (50000 units of `usd` for `clientId`), the credit then landing late, right after the `nth` call of
 * `method` (an earlier attempt's held store command, or the webhook's credit).
 */
export function creditLandingAfter(method: StoreMethod, nth: number, clientId: string, firstPayment: TableRequest): Setup {
  return {
    faults: [
      { method: 'creditTopUp', nth: 1, script: 'reject' },
      { method, nth, script: (store) => store.creditTopUp({ clientId, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_fake_1' }) },
    ],
    before: [firstPayment],
  };
}
