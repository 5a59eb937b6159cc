// Test cards for tests against any Stripe API: unique Luhn-valid numbers (a new fingerprint each) and payment methods created like Stripe.js does.
import { randomInt } from 'node:crypto';
import { withLuhnDigit } from './cards.ts';

/** A random 16-digit Visa number outside Stripe's documented test numbers: practically never seen before. */
export function uniqueCardNumber(): string {
  let digits = '424299';
  for (let i = 0; i < 9; i++) digits += String(randomInt(10));
  return withLuhnDigit(digits);
}

interface PaymentMethodBody {
  id?: string;
  card?: { fingerprint?: string } | null;
  error?: { message?: string };
}

async function stripeCall(url: string, key: string, init: { method: 'GET' | 'POST'; form?: URLSearchParams }): Promise<PaymentMethodBody> {
  const response = await fetch(url, {
    method: init.method,
    headers: { authorization: `Bearer ${key}`, ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(init.form ? { body: init.form } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as PaymentMethodBody;
  if (!response.ok) throw new Error(`${init.method} ${url} failed with ${response.status}: ${body.error?.message ?? ''}`);
  return body;
}

/**
 * Creates a card payment method with the publishable key; reads the fingerprint from the answer, or retrieves it
 * with the secret key. Resolves with the id, the fingerprint and whether a retrieval appeared in the journal.
 */
export async function createPaymentMethod(
  emulatorUrl: string,
  keys: { publishable: string; secret: string },
  number: string,
): Promise<{ paymentMethodId: string; fingerprint: string; retrieved: boolean }> {
  const form = new URLSearchParams({
    type: 'card',
    'card[number]': number,
    'card[exp_month]': '12',
    'card[exp_year]': String(new Date().getUTCFullYear() + 4),
    'card[cvc]': '123',
  });
  const created = await stripeCall(`${emulatorUrl}/v1/payment_methods`, keys.publishable, { method: 'POST', form });
  if (!created.id) throw new Error('the processor created a payment method without id');
  if (created.card?.fingerprint) return { paymentMethodId: created.id, fingerprint: created.card.fingerprint, retrieved: false };
  const method = await stripeCall(`${emulatorUrl}/v1/payment_methods/${encodeURIComponent(created.id)}`, keys.secret, { method: 'GET' });
  if (!method.card?.fingerprint) throw new Error(`payment method ${created.id} has no card fingerprint`);
  return { paymentMethodId: created.id, fingerprint: method.card.fingerprint, retrieved: true };
}
