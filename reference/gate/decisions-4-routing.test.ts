// Decision table of spec §4 routing: which request targets are gated, free or ambiguous, and the route a gated one pays for.
import { describe, it } from 'vitest';
import { ALICE } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { WEATHER_ROUTE, challenge, type ChallengedRoute } from 'credit402-tooling/testing/spec-answers';

const FUNDED = { balances: { [ALICE]: { usd: 1_000 } } };
const UNTOUCHED = { calls: [], clients: { [ALICE]: { balances: { usd: 1_000 }, topUps: 0 } } };

/** A gated request without payment: the plain challenge of `route`, after no store or processor call. */
const gated = (title: string, method: string, url: string, route: ChallengedRoute = WEATHER_ROUTE): Row => ({
  title,
  request: { method, url },
  decision: { action: 'respond', status: 402, challenge: challenge(route) },
  store: { calls: [] },
  processor: { calls: [] },
});

/** A free request carrying a malformed header and nothing else: passed untouched, the header never read (CR-4.4). */
const free = (title: string, method: string, url: string): Row => ({
  title,
  setup: FUNDED,
  request: { method, url, header: 'not base64!' },
  decision: { action: 'pass' },
  store: UNTOUCHED,
  processor: { calls: [] },
});

/** An ambiguous target carrying a funded client's payment: 400 before anything is read (CR-4.10). */
const ambiguous = (title: string, method: string, url: string): Row => ({
  title,
  setup: FUNDED,
  request: { method, url, payment: { clientId: ALICE } },
  decision: {
    action: 'respond',
    status: 400,
    code: 'ambiguous_request_target',
    message: /^Ambiguous request target: ./,
    headers: { 'content-type': /^application\/json/, 'payment-required': null, 'payment-response': null },
  },
  store: UNTOUCHED,
  processor: { calls: [] },
});

/** A request that spends ALICE's balance on a route of price `price`. */
const spends = (title: string, method: string, url: string, price: number): Row => ({
  title,
  setup: FUNDED,
  request: { method, url, payment: { clientId: ALICE } },
  decision: { action: 'serve', payment: { success: true, creditsRemaining: 1_000 - price, clientId: ALICE } },
  store: { calls: ['deductBalance'], clients: { [ALICE]: { balances: { usd: 1_000 - price }, topUps: 0 } } },
  processor: { calls: [] },
});

const rows: Row[] = [
  gated('CR-4.2 the exact route key is gated', 'GET', '/api/weather'),
  gated('CR-4.2 CR-4.3 CR-5.2 the query is no part of the request path', 'GET', '/api/weather?city=Oslo'),
  gated('CR-4.2 CR-4.3 a percent-encoded unreserved character is decoded: /api/%77eather', 'GET', '/api/%77eather'),
  gated('CR-4.2 CR-4.10 an http absolute form is gated on its path', 'GET', 'http://x/api/weather'),
  gated('CR-4.2 CR-4.10 an HTTPS absolute form in upper case with a query is gated', 'GET', 'HTTPS://x/api/weather?city=Oslo'),
  gated('CR-4.10 a backslash after the ? is not ambiguous', 'GET', '/api/weather?x=\\'),
  gated('CR-4.8 CR-5.2 HEAD follows GET: the challenge names the GET route', 'HEAD', '/api/weather'),
  gated('CR-4.2 CR-5.2 only unreserved encodings are decoded: /files/%61%2Fb matches GET /files/a%2Fb', 'GET', '/files/%61%2Fb?x=1', { url: '/files/a%2Fb', amount: 500 }),
  spends('CR-4.8 HEAD follows GET: HEAD spends the GET price', 'HEAD', '/api/weather', 500),
  spends('CR-4.8 an explicit HEAD key takes precedence over GET', 'HEAD', '/api/both', 100),
  spends('CR-4.2 an absolute form spends the price of its path', 'GET', 'http://example.test/api/weather?city=Oslo', 500),
  free('CR-4.3 CR-4.4 a trailing slash is another path: free', 'GET', '/api/weather/'),
  free('CR-4.3 CR-4.4 case is not folded: /API/weather is free', 'GET', '/API/weather'),
  free('CR-4.3 CR-4.4 %57 decodes to W, another path: free', 'GET', '/api/%57eather'),
  free('CR-4.3 CR-4.4 %2F is not decoded: /api%2Fweather is free', 'GET', '/api%2Fweather'),
  free('CR-4.3 CR-4.4 slashes are not merged: //api/weather is free', 'GET', '//api/weather'),
  free('CR-4.3 CR-4.4 another method is free', 'POST', '/api/weather'),
  free('CR-4.2 methods compare case-sensitively: get is free', 'get', '/api/weather'),
  free('CR-4.10 %5C is not a backslash: /api%5Cweather is free', 'GET', '/api%5Cweather'),
  free('CR-4.10 the asterisk form names no route: free', 'OPTIONS', '*'),
  free('CR-4.4 an OPTIONS of a gated path without a CORS policy is free', 'OPTIONS', '/api/weather'),
  {
    title: 'CR-4.4 a free request with a funded clientId is neither read nor deducted',
    setup: FUNDED,
    request: { url: '/free', payment: { clientId: ALICE } },
    decision: { action: 'pass' },
    store: UNTOUCHED,
    processor: { calls: [] },
  },
  ambiguous('CR-4.10 a backslash before the query', 'GET', '/api\\weather'),
  ambiguous('CR-4.10 a fragment', 'GET', '/api/weather#x'),
  ambiguous('CR-4.10 an empty fragment', 'GET', '/api/weather#'),
  ambiguous('CR-4.10 a backslash, a query and a fragment', 'GET', '/api\\weather?city=Oslo#'),
  ambiguous('CR-4.10 a backslash in an absolute form', 'GET', 'http://x/api\\weather'),
  ambiguous('CR-4.10 whatever the method: POST with a backslash and a fragment', 'POST', '/api\\translate#'),
  ambiguous('CR-4.10 an absolute form of another scheme', 'GET', 'ftp://x/api/weather'),
  ambiguous('CR-4.10 an absolute form without a host', 'GET', 'http:///api/weather'),
  ambiguous('CR-4.10 neither origin-form nor absolute-form', 'GET', 'api/weather'),
  ambiguous('CR-4.10 a dot segment', 'GET', '/api/./weather'),
  ambiguous('CR-4.10 a dot-dot segment once %2e is decoded', 'GET', '/api/%2e%2e/api/weather'),
  ambiguous('CR-4.10 a space', 'GET', '/api/weather x'),
  ambiguous('CR-4.10 a non-ASCII character', 'GET', '/api/wéather'),
];

describe('CR-4.2 CR-4.3 CR-4.4 CR-4.8 CR-4.10 CR-5.2 routing decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
