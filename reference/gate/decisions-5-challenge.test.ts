// Decision table of spec §5: the plain and insufficient-credits challenges, member by member, and what precedes them.
import { describe, it } from 'vitest';
import { ALICE, BOB } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row, type TableRequest } from 'credit402-tooling/testing/decision-table';
import { WEATHER_ROUTE, challenge, type ChallengedRoute } from 'credit402-tooling/testing/spec-answers';

/** Appendix A.1 and A.2: the exact `payment-required` values of the example route. */
const A1 = 'eyJzdHJpcGU0MDJWZXJzaW9uIjoxLCJyZXNvdXJjZSI6eyJ1cmwiOiIvYXBpL3dlYXRoZXIiLCJkZXNjcmlwdGlvbiI6IldlYXRoZXIgZGF0YSJ9LCJhY2NlcHRzIjpbeyJzY2hlbWUiOiJzdHJpcGUiLCJjdXJyZW5jeSI6InVzZCIsImFtb3VudCI6NTAwLCJtaW5Ub3BVcCI6NTAwMDAsInB1Ymxpc2hhYmxlS2V5IjoicGtfdGVzdF81MWNyZWRpdDQwMmV4YW1wbGUiLCJkZXNjcmlwdGlvbiI6IldlYXRoZXIgZGF0YSJ9XX0=';
const A2 = 'eyJzdHJpcGU0MDJWZXJzaW9uIjoxLCJyZXNvdXJjZSI6eyJ1cmwiOiIvYXBpL3dlYXRoZXIiLCJkZXNjcmlwdGlvbiI6IldlYXRoZXIgZGF0YSJ9LCJhY2NlcHRzIjpbeyJzY2hlbWUiOiJzdHJpcGUiLCJjdXJyZW5jeSI6InVzZCIsImFtb3VudCI6NTAwLCJtaW5Ub3BVcCI6NTAwMDAsInB1Ymxpc2hhYmxlS2V5IjoicGtfdGVzdF81MWNyZWRpdDQwMmV4YW1wbGUiLCJkZXNjcmlwdGlvbiI6IldlYXRoZXIgZGF0YSJ9XSwiZXJyb3IiOiJpbnN1ZmZpY2llbnRfY3JlZGl0cyIsIm1lc3NhZ2UiOiJJbnN1ZmZpY2llbnQgY3JlZGl0cyBmb3IgdGhpcyByZXF1ZXN0In0=';

const CHALLENGE_HEADERS = { 'payment-required': /^[A-Za-z0-9+/]+={0,2}$/, 'payment-response': null, 'retry-after': null };

/** A challenge for `request`, exactly `expected`, after the store calls `calls` and no processor call. */
const challenged = (title: string, request: TableRequest, expected: ChallengedRoute, insufficient: boolean, calls: Row['store'] = { calls: [] }): Row => ({
  title,
  setup: { balances: { [ALICE]: { usd: 499 } } },
  request,
  decision: { action: 'respond', status: 402, headers: CHALLENGE_HEADERS, challenge: challenge(expected, insufficient), body: challenge(expected, insufficient) },
  store: calls,
  processor: { calls: [] },
});

const rows: Row[] = [
  {
    title: 'CR-5.1 CR-5.2 CR-5.3 CR-5.4 CR-5.6 the plain challenge is A.1, byte for byte',
    request: {},
    decision: { action: 'respond', status: 402, headers: { ...CHALLENGE_HEADERS, 'payment-required': A1 }, body: challenge(WEATHER_ROUTE) },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-5.1 CR-5.5 CR-5.6 CR-6.3 the insufficient-credits challenge of an unknown client is A.2, byte for byte',
    request: { payment: { stripe402Version: 1, clientId: BOB } },
    decision: { action: 'respond', status: 402, headers: { ...CHALLENGE_HEADERS, 'payment-required': A2 }, code: 'insufficient_credits', message: /./ },
    store: { calls: ['deductBalance'], clients: { [BOB]: null } },
    processor: { calls: [] },
  },
  challenged('CR-5.2 CR-5.3 a route without description has no description member', { url: '/api/zero' }, { url: '/api/zero', amount: 0 }, false),
  challenged('CR-5.3 CR-2.13 the currency of a route configured EUR is eur', { url: '/api/euro' }, { url: '/api/euro', amount: 500, currency: 'eur' }, false),
  challenged('CR-5.3 amount and default minTopUp of a dear route', { url: '/api/dear' }, { url: '/api/dear', amount: 50_000 }, false),
  challenged('CR-5.2 a POST route names its path', { method: 'POST', url: '/api/translate' }, { url: '/api/translate', amount: 2_000 }, false),
  challenged(
    'CR-5.5 CR-5.7 CR-5.8 CR-6.3 a client short of funds gets the insufficient challenge after one deduction attempt, its balance unchanged',
    { payment: { clientId: ALICE } },
    WEATHER_ROUTE,
    true,
    { calls: ['deductBalance'], clients: { [ALICE]: { balances: { usd: 499 }, topUps: 0 } } },
  ),
  challenged(
    'CR-5.7 the insufficient challenge does not depend on the payload: a requestId and unknown members change nothing',
    { payment: { clientId: BOB, requestId: 'r-1', note: 'x' } },
    WEATHER_ROUTE,
    true,
    { calls: ['deductBalance'], clients: { [BOB]: null } },
  ),
  challenged(
    'CR-5.5 CR-5.8 CR-6.1 a clientId of the wrong shape gets the insufficient challenge without a store call',
    { payment: { clientId: ALICE.toUpperCase() } },
    WEATHER_ROUTE,
    true,
  ),
  challenged('CR-5.4 CR-5.7 CR-5.8 every plain challenge is the same: {} with a version', { payment: { stripe402Version: 1 } }, WEATHER_ROUTE, false),
];

describe('CR-5.1 CR-5.2 CR-5.3 CR-5.4 CR-5.5 CR-5.6 CR-5.7 CR-5.8 challenge decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
