// Decision table of spec §7, the new-payment path: steps 7.1–7.13 in order, the charge's parameters, and each way a step can end it.
import { describe, it } from 'vitest';
import { MESSAGES } from '../protocol/constants.ts';
import { VISA, VISA_PM, VISA_PM_2, SEPA_PM, clientIdOf, VISA_FINGERPRINT } from 'credit402-tooling/testing/decision-fixtures';
import { checkRow, creditLandingAfter, titled, type Row, type Setup } from 'credit402-tooling/testing/decision-table';
import { PAYMENT_FAILED, WEATHER_ROUTE, chargeKey, challenge, failure } from 'credit402-tooling/testing/spec-answers';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';

const WEATHER = 'GET /api/weather';
const PAY = { payment: { paymentMethodId: VISA_PM } };
const NEW_PAYMENT = ['getCardFingerprint', 'findOrCreateCustomer', 'charge'] as const;
const KEY_0 = chargeKey(VISA, 0, VISA_PM, WEATHER, 50_000, 'usd');
const FIRST_PAYMENT = { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA, chargeId: 'pi_fake_1' } } as const;
const PAID = { clients: { [VISA]: { balances: { usd: 49_500 }, topUps: 1 } } };
const NOT_CREDITED = { clients: { [VISA]: null } };
const FROM_BALANCE = ['processor.getCardFingerprint', 'store.acquireLock', 'store.getClient', 'store.deductBalance', 'store.releaseLock'];

/** A request refused before any processor or store call (CR-7.26). */
const refusedEarly = (title: string, request: Row['request'], code: string, message: string | RegExp): Row => ({
  title,
  request,
  decision: { action: 'respond', status: 402, code, message },
  store: { calls: [] },
  processor: { calls: [] },
});

/** A processor failure: the answer, the calls made before it ended, nothing credited. */
const processorFailed = (title: string, processor: Setup['processor'], code: string, message: string, calls: Row['processor']['calls']): Row => ({
  title,
  setup: { processor },
  request: PAY,
  decision: { action: 'respond', status: 402, body: failure(code === 'card_declined' ? 'card_declined' : 'payment_failed', message) },
  store: { ...NOT_CREDITED, records: { [VISA]: [] }, ...(calls.length === 1 ? { calls: [] } : {}) },
  processor: { calls },
});

/** A store failure on the new-payment path: 503 with `message`, after the processor calls `calls`. */
const storeFailed = (title: string, faults: Setup['faults'], message: string, calls: Row['processor']['calls'], after: Row['store']): Row => ({
  title,
  setup: { faults },
  request: PAY,
  decision: { action: 'respond', status: 503, headers: { 'retry-after': '1' }, body: failure('service_unavailable', message) },
  store: after,
  processor: { calls },
});

const rows: Row[] = [
  refusedEarly('CR-7.1 CR-7.26 CR-8.5 a top-up below minTopUp names both numbers; nothing is called', { payment: { paymentMethodId: VISA_PM, topUpAmount: 10_000 } }, 'top_up_below_minimum', 'Top-up amount 10000 units is below the minimum top-up of 50000 units'),
  refusedEarly('CR-7.1 CR-7.26 CR-8.4 a top-up above maxTopUp is invalid_payment naming topUpAmount; nothing is called', { method: 'POST', url: '/api/translate', payment: { paymentMethodId: VISA_PM, topUpAmount: 100_001 } }, 'invalid_payment', /topUpAmount.*100000/),
  refusedEarly('CR-7.27 a paymentMethodId of .. is refused without a processor call', { payment: { paymentMethodId: '..' } }, 'invalid_payment', /paymentMethodId/),
  refusedEarly('CR-7.27 a paymentMethodId with a path is refused without a processor call', { payment: { paymentMethodId: 'pm_../x' } }, 'invalid_payment', /paymentMethodId/),
  refusedEarly('CR-7.27 a paymentMethodId with a space is refused without a processor call', { payment: { paymentMethodId: 'pm_card visa' } }, 'invalid_payment', /paymentMethodId/),
  refusedEarly('CR-7.27 a paymentMethodId of 101 characters is refused without a processor call', { payment: { paymentMethodId: `pm_${'a'.repeat(98)}` } }, 'invalid_payment', /paymentMethodId/),
  refusedEarly('CR-7.27 a paymentMethodId without the pm_ prefix is refused without a processor call', { payment: { paymentMethodId: 'card_visa' } }, 'invalid_payment', /paymentMethodId/),
  {
    title: 'CR-7.27 CR-7.2 a paymentMethodId of 100 characters has the shape: it reaches the processor, which does not know it',
    request: { payment: { paymentMethodId: `pm_${'a'.repeat(97)}` } },
    decision: { action: 'respond', status: 402, body: failure('payment_failed', PAYMENT_FAILED) },
    store: { calls: [] },
    processor: { calls: ['getCardFingerprint'] },
  },
  {
    ...processorFailed('CR-7.2 CR-7.20 an unknown PaymentMethod: payment_failed with the fixed message, no customer call, no charge', {}, 'payment_failed', PAYMENT_FAILED, ['getCardFingerprint']),
    request: { payment: { paymentMethodId: 'pm_unknown' } },
  },
  {
    ...processorFailed('CR-7.2 CR-8.7 a PaymentMethod without a card fingerprint: payment_failed, no customer call, no charge', {}, 'payment_failed', PAYMENT_FAILED, ['getCardFingerprint']),
    request: { payment: { paymentMethodId: SEPA_PM } },
    reported: ['getCardFingerprint'],
  },
  {
    title: 'CR-7.3 CR-7.8 CR-7.9 CR-7.10 CR-7.11 CR-7.12 CR-7.13 a first payment: A.6 clientId, steps in order, one topup and one deduction record',
    request: PAY,
    decision: FIRST_PAYMENT,
    store: {
      ...PAID,
      records: {
        [VISA]: [
          { type: 'topup', clientId: VISA, currency: 'usd', amount: 50_000, paymentIntentId: 'pi_fake_1' },
          { type: 'deduction', clientId: VISA, currency: 'usd', amount: 500, resource: WEATHER },
        ],
      },
    },
    processor: { calls: [...NEW_PAYMENT] },
    steps: [
      'processor.getCardFingerprint', 'store.acquireLock', 'store.getClient', 'store.deductBalance', 'processor.findOrCreateCustomer',
      'processor.charge', 'store.creditTopUp', 'store.deductBalance', 'store.releaseLock',
    ],
  },
  {
    title: 'CR-7.3 CR-10.3 another serverSecret gives the same card another clientId',
    setup: { options: { serverSecret: 'another-server-secret-0123456789abcdef' } },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: clientIdOf(VISA_FINGERPRINT, 'another-server-secret-0123456789abcdef'), chargeId: 'pi_fake_1' } },
    store: NOT_CREDITED,
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: "CR-7.4 the card's existing balance is spent first: no customer call, no charge, no chargeId",
    setup: { balances: { [VISA]: { usd: 1_000 } } },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: VISA } },
    store: { clients: { [VISA]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: ['getCardFingerprint'] },
    steps: FROM_BALANCE,
  },
  {
    title: 'CR-7.4 CR-10.3 another PaymentMethod of the same card spends the same balance',
    setup: { balances: { [VISA]: { usd: 1_000 } } },
    request: { payment: { paymentMethodId: VISA_PM_2 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 500, clientId: VISA } },
    store: { clients: { [VISA]: { balances: { usd: 500 }, topUps: 0 } } },
    processor: { calls: ['getCardFingerprint'] },
  },
  {
    title: 'CR-7.4 CR-7.13 the next request with the card after its first payment is served from the balance',
    setup: { before: [PAY] },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_000, clientId: VISA } },
    store: { clients: { [VISA]: { balances: { usd: 49_000 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT, 'getCardFingerprint'] },
  },
  {
    title: "CR-7.5 CR-7.19 the client's existing customer is reused",
    setup: { processor: { customers: { [VISA]: 'cus_existing' } } },
    request: PAY,
    decision: FIRST_PAYMENT,
    store: PAID,
    processor: { calls: [...NEW_PAYMENT], charges: [{ customerId: 'cus_existing' }], createdCustomers: 0 },
  },
  {
    title: 'CR-7.6 CR-7.14 CR-7.15 CR-7.16 CR-7.17 CR-7.18 CR-7.19 exactly one charge, with the parameters of A.7 and the key of n = 0 on a new customer',
    request: PAY,
    decision: FIRST_PAYMENT,
    store: PAID,
    processor: {
      calls: [...NEW_PAYMENT],
      createdCustomers: 1,
      charges: [{
        amountCents: 500,
        currency: 'usd',
        paymentMethodId: VISA_PM,
        customerId: 'cus_fake_1',
        description: 'credit402 top-up for Weather data',
        idempotencyKey: KEY_0,
        metadata: { credit402_client_id: VISA, credit402_top_up_units: '50000' },
      }],
    },
  },
  {
    title: 'CR-7.18 CR-7.16 without a route description the description names the path; serviceName prefixes it',
    setup: { options: { serviceName: 'acme' } },
    request: { method: 'POST', url: '/api/translate', payment: { paymentMethodId: VISA_PM, topUpAmount: 100_000 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 98_000, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 98_000 }, topUps: 1 } } },
    processor: {
      calls: [...NEW_PAYMENT],
      charges: [{ amountCents: 1_000, description: 'acme top-up for /api/translate', idempotencyKey: chargeKey(VISA, 0, VISA_PM, 'POST /api/translate', 100_000, 'usd') }],
    },
  },
  {
    title: 'CR-7.1 CR-7.14 CR-7.9 CR-1.3 a top-up of 50001 units charges 501 minor units and credits 50001 units',
    request: { payment: { paymentMethodId: VISA_PM, topUpAmount: 50_001 } },
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_501, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 49_501 }, topUps: 1 } }, records: { [VISA]: [{ type: 'topup', amount: 50_001 }, { type: 'deduction', amount: 500 }] } },
    processor: { calls: [...NEW_PAYMENT], charges: [{ amountCents: 501, metadata: { credit402_top_up_units: '50001' }, idempotencyKey: chargeKey(VISA, 0, VISA_PM, WEATHER, 50_001, 'usd') }] },
  },
  {
    title: 'CR-7.16 after a credited top-up the next charge sends a new key (n = 1), and the balance adds up',
    setup: { credited: [{ clientId: VISA, currency: 'usd', amount: 100, paymentIntentId: 'pi_earlier' }] },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_600, clientId: VISA, chargeId: 'pi_fake_1' } },
    store: { clients: { [VISA]: { balances: { usd: 49_600 }, topUps: 2 } } },
    processor: { calls: [...NEW_PAYMENT], charges: [{ idempotencyKey: chargeKey(VISA, 1, VISA_PM, WEATHER, 50_000, 'usd') }] },
  },
  {
    // The late credit of the first attempt lands after the retry's step 4 found no balance: read after step 4, n would
    // be 1, and a new key would charge the request a second time (seen under the fault load's held store commands).
    title: 'CR-7.16 CR-7.22 CR-7.23 a late credit landing after the retry\'s step 4 leaves its key as read before: the PaymentIntent replayed, one charge',
    setup: creditLandingAfter('deductBalance', 2, VISA, PAY),
    request: PAY,
    decision: FIRST_PAYMENT,
    store: { ...PAID, records: { [VISA]: [{ type: 'topup', paymentIntentId: 'pi_fake_1' }, { type: 'deduction' }] } },
    processor: { calls: [...NEW_PAYMENT, ...NEW_PAYMENT], charges: [{ idempotencyKey: KEY_0 }, { idempotencyKey: KEY_0 }] },
  },
  {
    title: 'CR-7.16 CR-7.22 CR-7.23 a retry after the credit failed sends the same key; the replayed PaymentIntent is credited once',
    setup: { faults: [{ method: 'creditTopUp', nth: 1, script: 'reject' }], before: [PAY] },
    request: PAY,
    decision: FIRST_PAYMENT,
    store: { ...PAID, records: { [VISA]: [{ type: 'topup', paymentIntentId: 'pi_fake_1' }, { type: 'deduction' }] } },
    processor: { calls: [...NEW_PAYMENT, ...NEW_PAYMENT], charges: [{ idempotencyKey: KEY_0 }, { idempotencyKey: KEY_0 }] },
  },
  {
    title: 'CR-7.7 CR-8.7 a PaymentIntent that requires action: payment_failed with the exact message, nothing credited',
    setup: { processor: { charges: [{ kind: 'status', status: 'requires_action' }] } },
    request: PAY,
    decision: { action: 'respond', status: 402, body: failure('payment_failed', PAYMENT_FAILED) },
    store: { calls: ['acquireLock', 'getClient', 'deductBalance', 'releaseLock'], clients: { [VISA]: null }, records: { [VISA]: [] } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-7.7 a PaymentIntent still processing: payment_failed, nothing credited',
    setup: { processor: { charges: [{ kind: 'status', status: 'processing' }] } },
    request: PAY,
    decision: { action: 'respond', status: 402, body: failure('payment_failed', PAYMENT_FAILED) },
    store: NOT_CREDITED,
    processor: { calls: [...NEW_PAYMENT] },
  },
  {
    title: 'CR-7.11 CR-5.5 the balance spent between credit and deduction: insufficient challenge, the credit kept',
    setup: { faults: [{ method: 'creditTopUp', script: (store) => store.deductBalance({ clientId: VISA, currency: 'usd', amount: 50_000 }) }] },
    request: PAY,
    decision: { action: 'respond', status: 402, challenge: challenge(WEATHER_ROUTE, true) },
    store: { clients: { [VISA]: { balances: { usd: 0 }, topUps: 1 } } },
    processor: { calls: [...NEW_PAYMENT] },
  },
  processorFailed("CR-7.20 CR-8.6 a declined card: card_declined with the processor's message verbatim", { charges: [{ kind: 'card_error', message: 'Your card was declined.' }] }, 'card_declined', 'Your card was declined.', [...NEW_PAYMENT]),
  processorFailed('CR-7.20 a card error on the PaymentMethod retrieval is card_declined too', { failures: { getCardFingerprint: { kind: 'card_error', message: 'Your card has expired.' } } }, 'card_declined', 'Your card has expired.', ['getCardFingerprint']),
  {
    ...processorFailed("CR-7.20 CR-8.7 another processor error: payment_failed with the fixed message, not the processor's", { charges: [{ kind: 'error', message: 'Invalid API Key provided: sk_test_****abcd' }] }, 'payment_failed', PAYMENT_FAILED, [...NEW_PAYMENT]),
    reported: ['charge'],
  },
  processorFailed('CR-7.20 CR-8.7 no answer from the processor: payment_failed with the fixed message, not the SDK text', { charges: [{ kind: 'no_answer' }] }, 'payment_failed', PAYMENT_FAILED, [...NEW_PAYMENT]),
  {
    ...processorFailed('CR-7.20 a customer call that fails: payment_failed, no charge', { failures: { findOrCreateCustomer: { kind: 'error', message: 'Search is temporarily unavailable' } } }, 'payment_failed', PAYMENT_FAILED, ['getCardFingerprint', 'findOrCreateCustomer']),
    reported: ['findOrCreateCustomer'],
  },
  storeFailed('CR-7.21 CR-7.26 CR-8.12 the step-4 deduction failing: 503 before any customer call or charge', [{ method: 'deductBalance', nth: 1, script: 'reject' }], OUTCOME_UNKNOWN.DEDUCTION, ['getCardFingerprint'], {
    calls: ['acquireLock', 'getClient', 'deductBalance', 'releaseLock'],
    ...NOT_CREDITED,
  }),
  storeFailed('CR-7.21 CR-8.9 reading topUps failing: 503 saying nothing was charged or deducted', [{ method: 'getClient', script: 'reject' }], MESSAGES.STORE_UNAVAILABLE, ['getCardFingerprint'], NOT_CREDITED),
  storeFailed('CR-7.21 CR-8.9 the payment lease failing: 503 saying nothing was charged or deducted', [{ method: 'acquireLock', script: 'reject' }], MESSAGES.STORE_UNAVAILABLE, ['getCardFingerprint'], { calls: ['acquireLock'] }),
  storeFailed('CR-7.22 CR-8.12 the credit failing after the charge: 503 saying it may not be credited yet, retry', [{ method: 'creditTopUp', script: 'reject' }], OUTCOME_UNKNOWN.CREDIT, [...NEW_PAYMENT], NOT_CREDITED),
  storeFailed('CR-7.22 CR-8.12 the step-11 deduction failing: 503 saying the payment is credited', [{ method: 'deductBalance', nth: 2, script: 'reject' }], OUTCOME_UNKNOWN.DEDUCTION_AFTER_CREDIT, [...NEW_PAYMENT], {
    clients: { [VISA]: { balances: { usd: 50_000 }, topUps: 1 } },
  }),
  {
    title: 'CR-7.22 CR-7.4 a retry after the step-11 deduction failed is served from the balance, not charged again',
    setup: { faults: [{ method: 'deductBalance', nth: 2, script: 'reject' }], before: [PAY] },
    request: PAY,
    decision: { action: 'serve', payment: { success: true, creditsRemaining: 49_500, clientId: VISA } },
    store: PAID,
    processor: { calls: [...NEW_PAYMENT, 'getCardFingerprint'] },
  },
];

describe('CR-7.1 CR-7.2 CR-7.3 CR-7.4 CR-7.5 CR-7.6 CR-7.7 CR-7.8 CR-7.9 CR-7.10 CR-7.11 CR-7.12 CR-7.13 CR-7.14 CR-7.15 CR-7.16 CR-7.17 CR-7.18 CR-7.19 CR-7.20 CR-7.21 CR-7.22 CR-7.23 CR-7.26 CR-7.27 CR-10.3 new-payment decisions', () => {
  it.each(titled(rows))('%s', (_title, row) => checkRow(row));
});
