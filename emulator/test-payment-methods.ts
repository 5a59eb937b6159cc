// Stripe's documented test PaymentMethod ids (`pm_card_visa`, …), retrievable and usable by id like in test mode.
import { cardBrand } from './cards.ts';
import type { PaymentMethod } from './objects.ts';

/** Test id → card number, as documented at stripe.com/docs/testing. */
export const TEST_CARD_IDS: Readonly<Record<string, string>> = {
  pm_card_visa: '4242424242424242',
  pm_card_visa_debit: '4000056655665556',
  pm_card_mastercard: '5555555555554444',
  pm_card_amex: '378282246310005',
  pm_card_discover: '6011111111111117',
  pm_card_chargeDeclined: '4000000000000002',
  pm_card_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_chargeDeclinedLostCard: '4000000000009987',
  pm_card_chargeDeclinedStolenCard: '4000000000009979',
  pm_card_chargeDeclinedFraudulent: '4100000000000019',
  pm_card_chargeDeclinedExpiredCard: '4000000000000069',
  pm_card_chargeDeclinedIncorrectCvc: '4000000000000127',
  pm_card_chargeDeclinedProcessingError: '4000000000000119',
  pm_card_authenticationRequired: '4000002500003155',
  pm_card_threeDSecure2Required: '4000000000003220',
};

const EMPTY_ADDRESS = { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };

/** Billing details as Stripe returns them when none were given. */
export const emptyBillingDetails = (): PaymentMethod['billing_details'] => ({
  address: { ...EMPTY_ADDRESS },
  email: null,
  name: null,
  phone: null,
  tax_id: null,
});

/** Builds a card PaymentMethod object; `fingerprint` is the instance's fingerprint of `number`. */
export function cardPaymentMethod(id: string, number: string, fingerprint: string, exp: { month: number; year: number }, created: number): PaymentMethod {
  const brand = cardBrand(number);
  return {
    id,
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: emptyBillingDetails(),
    card: {
      brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'unchecked' },
      country: 'US',
      display_brand: brand === 'unknown' ? null : brand,
      exp_month: exp.month,
      exp_year: exp.year,
      fingerprint,
      funding: number === '4000056655665556' ? 'debit' : 'credit',
      generated_from: null,
      last4: number.slice(-4),
      networks: { available: [brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created,
    customer: null,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
}

/** `pm_usBankAccount`: a verified US bank account, a payment method without a card. */
export function usBankAccountPaymentMethod(fingerprint: string, created: number): PaymentMethod {
  return {
    id: 'pm_usBankAccount',
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: { ...emptyBillingDetails(), name: 'Jenny Rosen' },
    created,
    customer: null,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: 'us_bank_account',
    us_bank_account: {
      account_holder_type: 'individual',
      account_type: 'checking',
      bank_name: 'STRIPE TEST BANK',
      financial_connections_account: null,
      fingerprint,
      last4: '6789',
      networks: { preferred: 'ach', supported: ['ach'] },
      routing_number: '110000000',
      status_details: {},
    },
  };
}
