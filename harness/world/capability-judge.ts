// Judges of the capability scenarios: the 503 service_unavailable answer (CR-8.2) and client and transaction records (CR-11.7, CR-11.8).
import assert from 'node:assert/strict';
import { checkFor, RequirementFailure, resolveId, type CheckIds } from './check.ts';
import { singleHeader, type Exchange } from './exchange.ts';
import { answered, describeExchange, kindOf } from './judge.ts';
import { expectSchemaValid } from './schema-check.ts';

/** A transaction record a scenario expects: its type and amount, and the PaymentIntent id or route key it names. */
export interface ExpectedRecord {
  type: string;
  amount: number;
  /** The currency of the balance credited or deducted (CR-6.8). */
  currency?: string;
  paymentIntentId?: string;
  resource?: string;
}

const ERROR_MEMBERS = ['clientId', 'creditsRemaining', 'error', 'errorCode', 'success'];
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The answer must be 503 `service_unavailable` (anything else fails `outcome`, default: the caller's requirement, e.g.
 * the premise of `SERVICE_UNAVAILABLE`), with the form of CR-8.2: `Retry-After: 1`, a JSON body shaped as a payment error, no protocol
 * header. Returns the `error` message.
 */
export function expectServiceUnavailable(exchange: Exchange, outcome?: CheckIds): string {
  const answer = answered(exchange);
  const body = answer.json;
  if (answer.status !== 503 || !isObject(body) || body.errorCode !== 'service_unavailable') {
    const message = `expected 503 service_unavailable, got ${kindOf(exchange)}: ${describeExchange(exchange)}`;
    if (outcome === undefined) assert.fail(message);
    throw new RequirementFailure(resolveId(outcome), message);
  }
  checkFor('CR-8.2', () => {
    assert.equal(singleHeader(answer, 'retry-after'), '1', 'a service_unavailable answer carries Retry-After: 1');
    expectSchemaValid(exchange);
    assert.match(singleHeader(answer, 'content-type') ?? '', /^application\/json\s*(;|$)/i, 'the body is application/json');
    assert.equal(answer.headers['payment-required'], undefined, 'a service_unavailable answer must not carry payment-required');
    assert.equal(answer.headers['payment-response'], undefined, 'a service_unavailable answer must not carry payment-response');
    assert.deepEqual(Object.keys(body).sort(), ERROR_MEMBERS, `the body has exactly the members ${ERROR_MEMBERS.join(', ')}`);
    assert.equal(body.success, false, 'success is false');
    assert.equal(body.creditsRemaining, 0, 'creditsRemaining is 0');
    assert.equal(body.clientId, '', 'clientId is the empty string');
    assert.ok(typeof body.error === 'string' && body.error !== '', 'error is a non-empty message');
  });
  return typeof body.error === 'string' ? body.error : '';
}

/** The PaymentIntent id of a `topup` record, under the spec's name or the source's (`stripePaymentIntentId`, CR-11.7). */
const intentOf = (record: Record<string, unknown>): unknown => record.paymentIntentId ?? record.stripePaymentIntentId;

const sortedLines = (items: unknown[]): string[] => items.map((item) => JSON.stringify(item)).sort();

/** Problems with one record's fields (CR-11.7, CR-13.4): exactly the fields of its type, each of the right form. */
export function recordFieldProblems(record: Record<string, unknown>, clientId: string): string[] {
  const own = record.type === 'topup' ? 'paymentIntentId' : 'resource';
  const expected = ['amount', 'clientId', 'createdAt', 'currency', 'id', own, 'type'].sort();
  const problems: string[] = [];
  const fields = Object.keys(record).sort();
  if (JSON.stringify(fields) !== JSON.stringify(expected)) problems.push(`has the fields ${fields.join(', ')}; a ${String(record.type)} record has exactly ${expected.join(', ')}`);
  if (typeof record.id !== 'string' || !UUID_V4.test(record.id)) problems.push(`id ${JSON.stringify(record.id)} is not a version 4 UUID`);
  if (record.clientId !== clientId) problems.push(`clientId ${JSON.stringify(record.clientId)} is not the client's`);
  if (typeof record.createdAt !== 'string' || !ISO_UTC.test(record.createdAt) || Number.isNaN(Date.parse(record.createdAt))) {
    problems.push(`createdAt ${JSON.stringify(record.createdAt)} is not an ISO 8601 UTC time`);
  }
  if (typeof record.currency !== 'string' || !/^[a-z]{3}$/.test(record.currency)) problems.push(`currency ${JSON.stringify(record.currency)} is not a lowercase ISO 4217 code`);
  if (!Number.isSafeInteger(record.amount) || (record.amount as number) < 0) problems.push(`amount ${JSON.stringify(record.amount)} is not a non-negative safe integer`);
  return problems;
}

/**
 * The records must be exactly `expected`, in any order: their types and amounts, and the PaymentIntent of each `topup`
 * (CR-11.8, wire; under either name), then their fields and `resource` (CR-11.7, strict, which applies CR-13.4).
 */
export function expectRecords(records: ReadonlyArray<Record<string, unknown>>, expected: readonly ExpectedRecord[], clientId: string): void {
  const listed = records.map((record) => `  ${JSON.stringify(record)}`).join('\n') || '  (none)';
  checkFor('CR-11.8', () => {
    const wire = (type: unknown, amount: unknown, intent: unknown) => ({ type, amount, ...(type === 'topup' ? { paymentIntentId: intent } : {}) });
    assert.deepEqual(
      sortedLines(records.map((record) => wire(record.type, record.amount, intentOf(record)))),
      sortedLines(expected.map((record) => wire(record.type, record.amount, record.paymentIntentId))),
      `one topup record per credited PaymentIntent and one deduction record per served deduction; the client's records:\n${listed}`,
    );
  });
  checkFor('CR-11.7', () => {
    const problems = records.flatMap((record, i) => recordFieldProblems(record, clientId).map((problem) => `record ${i + 1} ${problem}`));
    const ids = records.map((record) => record.id);
    if (new Set(ids).size !== ids.length) problems.push('two records share an id');
    assert.deepEqual(problems, [], `the records' fields:\n${listed}`);
    const strict = (record: Record<string, unknown> | ExpectedRecord) =>
      record.type === 'topup'
        ? { type: record.type, amount: record.amount, currency: record.currency, paymentIntentId: record.paymentIntentId }
        : { type: record.type, amount: record.amount, currency: record.currency, resource: record.resource };
    assert.deepEqual(sortedLines(records.map(strict)), sortedLines(expected.map(strict)), `each deduction names its route key in resource; the client's records:\n${listed}`);
  });
}

/** Balances without their zero entries: a currency at 0 and a currency never held read the same (CR-11.7). */
function nonZero(balances: unknown): unknown {
  if (!isObject(balances)) return balances;
  return Object.fromEntries(Object.entries(balances).filter(([, units]) => units !== 0));
}

/** The client record must be `{ balances, topUps, createdAt }` with these values (CR-11.7, which applies CR-13.3 and CR-6.8); a balance of 0 may be absent. */
export function expectClientRecord(client: Record<string, unknown> | null, balances: Record<string, number>, topUps: number): void {
  checkFor('CR-11.7', () => {
    assert.ok(client, 'the client has a record');
    assert.deepEqual(Object.keys(client).sort(), ['balances', 'createdAt', 'topUps'], `a client record has exactly balances, topUps and createdAt: ${JSON.stringify(client)}`);
    assert.deepEqual(nonZero(client.balances), nonZero(balances), 'balances: units per currency (a balance of 0 may be absent)');
    assert.equal(client.topUps, topUps, 'topUps: the number of credited top-ups');
    assert.ok(typeof client.createdAt === 'string' && ISO_UTC.test(client.createdAt), `createdAt is an ISO 8601 UTC time: ${JSON.stringify(client.createdAt)}`);
  });
}

/** Each currency's balance must equal its top-ups minus its deductions in the log (CR-11.8: the log is exact). */
export function expectBalanceReconciles(client: Record<string, unknown> | null, records: ReadonlyArray<Record<string, unknown>>): void {
  checkFor('CR-11.8', () => {
    const fromLog: Record<string, number> = {};
    for (const record of records) {
      const currency = String(record.currency);
      fromLog[currency] = (fromLog[currency] ?? 0) + (record.type === 'topup' ? 1 : -1) * Number(record.amount);
    }
    const balances = isObject(client?.balances) ? client.balances : {};
    assert.deepEqual(nonZero(balances), nonZero(fromLog), 'each balance is the sum of the topup records minus the sum of the deduction records of its currency');
  });
}
