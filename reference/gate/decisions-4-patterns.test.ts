// Decision table of route patterns (spec CR-4.11–CR-4.15): which route a request pays for, what its challenge and charge name.
import { describe, it } from 'vitest';
import { ALICE, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { challenge, chargeKey } from 'credit402-tooling/testing/spec-answers';

const ROUTES = {
  'GET /api/users/me': { amount: 100 },
  'GET /api/users/:id': { amount: 300, description: 'User lookup' },
  'GET /api/files/:name': { amount: 250 },
  'GET /api/files/*': { amount: 200 },
};
const FUNDED = { routes: ROUTES, balances: { [ALICE]: { usd: 1_000 } } };
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;

/** A request spending ALICE's balance on the route priced `price`; its deduction record names the route key. */
const spends = (title: string, url: string, price: number, key: string, method = 'GET'): Row => ({
  title,
  setup: FUNDED,
  request: { method, url, payment: { clientId: ALICE } },
  decision: { action: 'serve', payment: { success: true, creditsRemaining: 1_000 - price, clientId: ALICE } },
  store: { calls: ['deductBalance'], records: { [ALICE]: [{ type: 'deduction', amount: price, resource: key }] } },
  processor: { calls: [] },
});

/** A request the table does not gate: passed with a malformed header never read (CR-4.4). */
const free = (title: string, url: string): Row => ({
  title,
  setup: FUNDED,
  request: { url, header: 'not base64!' },
  decision: { action: 'pass' },
  store: { calls: [] },
  processor: { calls: [] },
});

const rows: Row[] = [
  spends('CR-4.12 a named segment matches one segment: /api/users/42 pays GET /api/users/:id', '/api/users/42', 300, 'GET /api/users/:id'),
  spends('CR-4.13 a literal segment outranks a named one: /api/users/me', '/api/users/me', 100, 'GET /api/users/me'),
  spends('CR-4.13 a named segment outranks the wildcard: /api/files/a', '/api/files/a', 250, 'GET /api/files/:name'),
  spends('CR-4.12 the wildcard matches the rest: /api/files/a/b.txt', '/api/files/a/b.txt', 200, 'GET /api/files/*'),
  spends('CR-4.12 the wildcard matches an empty rest: /api/files/', '/api/files/', 200, 'GET /api/files/*'),
  spends('CR-4.12 CR-4.2 matching is on the decoded request path: /api/users/%34%32', '/api/users/%34%32', 300, 'GET /api/users/:id'),
  spends('CR-4.12 an encoded slash stays inside the segment: /api/users/a%2Fb', '/api/users/a%2Fb', 300, 'GET /api/users/:id'),
  spends('CR-4.8 HEAD follows the GET pattern', '/api/users/42', 300, 'GET /api/users/:id', 'HEAD'),
  free('CR-4.12 an empty named segment is no segment: /api/users/', '/api/users/'),
  free('CR-4.12 an extra segment: /api/users/42/x', '/api/users/42/x'),
  free('CR-4.12 a trailing slash is an extra (empty) segment: /api/users/42/', '/api/users/42/'),
  free('CR-4.12 the wildcard needs its slash: /api/files', '/api/files'),
  {
    title: 'CR-4.14 CR-5.2 the challenge of a pattern route names the request path, not the pattern',
    setup: { routes: ROUTES },
    request: { url: '/api/users/42?x=1' },
    decision: { action: 'respond', status: 402, challenge: challenge({ url: '/api/users/42', amount: 300, description: 'User lookup' }) },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-4.14 CR-5.5 the insufficient-credits challenge of a pattern route names the request path',
    setup: { routes: ROUTES, balances: { [ALICE]: { usd: 10 } } },
    request: { url: '/api/files/a/b', payment: { clientId: ALICE } },
    decision: { action: 'respond', status: 402, challenge: challenge({ url: '/api/files/a/b', amount: 200 }, true) },
    processor: { calls: [] },
  },
  {
    title: 'CR-4.14 CR-7.18 CR-7.16 without a description the PaymentIntent names the request path; the key names the route key',
    setup: { routes: ROUTES },
    request: { url: '/api/files/report.pdf', payment: { paymentMethodId: VISA_PM } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_750, clientId: VISA, chargeId: 'pi_fake_1' } },
    processor: {
      calls: [...NEW_PAYMENT],
      charges: [{ description: 'credit402 top-up for /api/files/report.pdf', idempotencyKey: chargeKey(VISA, 0, VISA_PM, 'GET /api/files/:name', 50_000, 'usd') }],
    },
  },
  {
    title: 'CR-6.9 CR-4.14 a requestId spent on one path of a pattern is refused on another path of it',
    setup: { ...FUNDED, before: [{ url: '/api/users/1', payment: { clientId: ALICE, requestId: 'r-1' } }] },
    request: { url: '/api/users/2', payment: { clientId: ALICE, requestId: 'r-1' } },
    decision: { action: 'respond', status: 402, code: 'invalid_payment', message: /requestId/ },
    store: { clients: { [ALICE]: { balances: { usd: 700 }, topUps: 0 } } },
    processor: { calls: [] },
  },
  {
    title: 'CR-6.9 a retry of the same pattern path with its requestId is served without a second deduction',
    setup: { ...FUNDED, before: [{ url: '/api/users/1', payment: { clientId: ALICE, requestId: 'r-1' } }] },
    request: { url: '/api/users/1', payment: { clientId: ALICE, requestId: 'r-1' } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 700, clientId: ALICE } },
    store: { clients: { [ALICE]: { balances: { usd: 700 }, topUps: 0 } } },
    processor: { calls: [] },
  },
];

describe('decision table: route patterns (CR-4.11–CR-4.14)', () => {
  it.each(titled(rows))('%s', async (_title, row) => {
    await checkRow(row);
  });
});
