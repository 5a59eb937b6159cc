// Decision table of spec §3: how the engine decodes and validates the `payment` header, before any store or processor call.
import { describe, it } from 'vitest';
import { ALICE, VISA, VISA_PM } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, titled, type Row } from 'credit402-tooling/testing/decision-table';
import { MALFORMED, WEATHER_ROUTE, challenge } from 'credit402-tooling/testing/spec-answers';

/** The base64 of a JSON text written by hand (numbers such as `1.0` or `5e4` that JSON.stringify would not keep). */
const raw = (json: string) => Buffer.from(json, 'utf8').toString('base64');
const b64 = (payload: unknown) => raw(JSON.stringify(payload));

const FUNDED = { balances: { [ALICE]: { usd: 1_000 } } };
const UNTOUCHED = { calls: [], clients: { [ALICE]: { balances: { usd: 1_000 }, topUps: 0 } } };
const NO_PROTOCOL_HEADER = { 'payment-required': null, 'payment-response': null };

/** A header refused before anything is read (CR-3.10): a funded client's balance stays, nothing is called. */
function refused(title: string, header: string | string[], message: string | RegExp): Row {
  return {
    title,
    setup: FUNDED,
    request: { header },
    decision: { action: 'respond', status: 402, code: 'invalid_payment', message, headers: NO_PROTOCOL_HEADER },
    store: UNTOUCHED,
    processor: { calls: [] },
  };
}

/** A payload whose member `member` is invalid (CR-3.7, CR-3.8): the message names it. */
const invalidMember = (title: string, member: string, header: string) => refused(title, header, new RegExp(`\\b${member}\\b`));

const servedFromAlice = (title: string, header: string): Row => ({
  title,
  setup: FUNDED,
  request: { header },
  decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: ALICE } },
  store: { calls: ['deductBalance'], clients: { [ALICE]: { balances: { usd: 500 }, topUps: 0 } } },
  processor: { calls: [] },
});

const rows: Row[] = [
  refused('CR-3.5 a value outside the base64 alphabets is malformed', 'not a header!', MALFORMED),
  refused('CR-3.5 an empty value is malformed, not the plain challenge', '', MALFORMED),
  refused('CR-3.4 CR-3.5 two payment lines are joined with a comma: malformed though each line alone is valid', [b64({ clientId: ALICE }), b64({ clientId: ALICE })], MALFORMED),
  refused('CR-3.5 a comma inside one value is malformed', 'e30=,e30=', MALFORMED),
  refused('CR-3.5 whitespace inside the value is malformed', 'e3 0=', MALFORMED),
  refused('CR-3.5 a body length of 1 modulo 4 is malformed', 'e', MALFORMED),
  refused('CR-3.5 two = after a full quantum are wrong padding', 'e30==', MALFORMED),
  refused('CR-3.5 three = are wrong padding', 'e30===', MALFORMED),
  refused('CR-3.5 bytes that are not UTF-8 are malformed', '/w==', MALFORMED),
  refused('CR-3.5 base64 of a text that is not JSON is malformed', 'YWJj', MALFORMED),
  refused('CR-3.5 NaN is not JSON', raw('{"topUpAmount":NaN}'), MALFORMED),
  refused('CR-3.6 a null payload names the payload', 'bnVsbA==', /payload/),
  refused('CR-3.6 an array payload names the payload', 'W10=', /payload/),
  refused('CR-3.6 a number payload names the payload', b64(42), /payload/),
  refused('CR-3.6 a string payload names the payload', b64(ALICE), /payload/),
  invalidMember('CR-3.7 CR-3.8 stripe402Version 2 is invalid', 'stripe402Version', b64({ stripe402Version: 2, clientId: ALICE })),
  invalidMember('CR-3.7 CR-3.8 stripe402Version "1" is invalid', 'stripe402Version', b64({ stripe402Version: '1', clientId: ALICE })),
  invalidMember('CR-3.7 CR-3.8 clientId "" is invalid', 'clientId', b64({ clientId: '' })),
  invalidMember('CR-3.7 CR-3.8 clientId null is present and invalid', 'clientId', b64({ clientId: null })),
  invalidMember('CR-3.7 CR-3.8 clientId 7 is invalid', 'clientId', b64({ clientId: 7 })),
  invalidMember('CR-3.7 CR-3.8 paymentMethodId "" is invalid, next to a funded clientId', 'paymentMethodId', b64({ clientId: ALICE, paymentMethodId: '' })),
  invalidMember('CR-3.7 CR-3.8 paymentMethodId null is invalid', 'paymentMethodId', b64({ paymentMethodId: null })),
  invalidMember('CR-3.7 CR-3.8 topUpAmount 0 is invalid, not below the minimum', 'topUpAmount', b64({ paymentMethodId: VISA_PM, topUpAmount: 0 })),
  invalidMember('CR-3.7 CR-3.8 topUpAmount -1 is invalid, next to a funded clientId', 'topUpAmount', b64({ clientId: ALICE, topUpAmount: -1 })),
  invalidMember('CR-3.7 CR-3.8 topUpAmount 50000.5 is invalid (A.4)', 'topUpAmount', 'eyJ0b3BVcEFtb3VudCI6NTAwMDAuNX0'),
  invalidMember('CR-3.7 CR-3.8 topUpAmount "50000" is invalid', 'topUpAmount', b64({ paymentMethodId: VISA_PM, topUpAmount: '50000' })),
  invalidMember('CR-3.7 CR-3.8 topUpAmount 2^53 is invalid', 'topUpAmount', raw('{"topUpAmount":9007199254740992}')),
  invalidMember('CR-3.7 CR-3.8 topUpAmount 1e400 is not finite', 'topUpAmount', raw('{"topUpAmount":1e400}')),
  invalidMember('CR-3.7 CR-3.8 topUpAmount 1e-400 reads as 0', 'topUpAmount', raw('{"topUpAmount":1e-400}')),
  invalidMember('CR-3.7 CR-3.8 requestId with a space is invalid', 'requestId', b64({ clientId: ALICE, requestId: 'has space' })),
  invalidMember('CR-3.7 CR-3.8 requestId of 65 characters is invalid', 'requestId', b64({ clientId: ALICE, requestId: 'r'.repeat(65) })),
  invalidMember('CR-3.7 CR-3.8 requestId "" is invalid', 'requestId', b64({ clientId: ALICE, requestId: '' })),
  invalidMember('CR-3.7 CR-3.8 requestId 12 is invalid', 'requestId', b64({ clientId: ALICE, requestId: 12 })),
  servedFromAlice('CR-3.7 stripe402Version 1.0 is 1 by value', raw(`{"stripe402Version":1.0,"clientId":"${ALICE}"}`)),
  servedFromAlice('CR-3.7 a requestId of 64 URL-safe characters is valid', b64({ clientId: ALICE, requestId: `${'A-z_9'.repeat(12)}abcd` })),
  servedFromAlice('CR-3.9 unknown members are ignored, whatever their value', b64({ clientId: ALICE, note: null, future: { nested: [1] } })),
  servedFromAlice('CR-3.11 CR-6.2 a topUpAmount below minTopUp is no error on the credits path', b64({ clientId: ALICE, paymentMethodId: VISA_PM, topUpAmount: 1 })),
  {
    title: 'CR-3.4 CR-4.5 e30 (unpadded {}) is the plain challenge, after no store call',
    request: { header: 'e30' },
    decision: { action: 'respond', status: 402, challenge: challenge(WEATHER_ROUTE) },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-3.4 e31= decodes like e30= (unused bits ignored): the plain challenge',
    request: { header: 'e31=' },
    decision: { action: 'respond', status: 402, challenge: challenge(WEATHER_ROUTE) },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-3.4 CR-3.9 the URL-safe unpadded payload of A.3 with an unknown member pays',
    request: { header: 'eyJwYXltZW50TWV0aG9kSWQiOiJwbV9jYXJkX3Zpc2EiLCJ0b3BVcEFtb3VudCI6NTAwMDAsIm5vdGUiOiJ3aHk_In0' },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: ['getCardFingerprint', 'findOrCreateCustomer', 'charge'], charges: [{ amountCents: 500 }] },
  },
  {
    title: 'CR-3.7 topUpAmount 5e4 is 50000 by value: 500 minor units charged, 50000 units credited',
    request: { header: raw(`{"paymentMethodId":"${VISA_PM}","topUpAmount":5e4}`) },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } },
    processor: { calls: ['getCardFingerprint', 'findOrCreateCustomer', 'charge'], charges: [{ amountCents: 500, metadata: { credit402_client_id: VISA, credit402_top_up_units: '50000' } }] },
  },
  {
    title: 'CR-3.7 CR-3.11 topUpAmount 0.99999999999999999 is a valid 1, then below the minimum on the new-payment path',
    request: { header: raw(`{"paymentMethodId":"${VISA_PM}","topUpAmount":0.99999999999999999}`) },
    decision: { action: 'respond', status: 402, code: 'top_up_below_minimum', message: /\b1\b.*\b50000\b/ },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-3.7 CR-7.1 topUpAmount 9007199254740990.9 is a valid 2^53-1, then above maxTopUp',
    request: { header: raw(`{"paymentMethodId":"${VISA_PM}","topUpAmount":9007199254740990.9}`) },
    decision: { action: 'respond', status: 402, code: 'invalid_payment', message: /topUpAmount/ },
    store: { calls: [] },
    processor: { calls: [] },
  },
  {
    title: 'CR-3.1 CR-3.2 CR-3.13 a paid answer carries a lowercase payment-response in padded standard base64, private',
    setup: FUNDED,
    request: { payment: { stripe402Version: 1, clientId: ALICE } },
    decision: {
      action: 'serve',
      headers: { 'payment-response': /^[A-Za-z0-9+/]+={0,2}$/, 'cache-control': 'no-store', vary: 'payment' },
      payment: { success: true, creditsRemaining: 500, clientId: ALICE },
    },
    store: { calls: ['deductBalance'] },
    processor: { calls: [] },
  },
];

describe('CR-3.1 CR-3.2 CR-3.4 CR-3.5 CR-3.6 CR-3.7 CR-3.8 CR-3.9 CR-3.10 CR-3.11 CR-3.13 decisions on the payment header', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
