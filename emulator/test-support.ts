// Test helpers: an emulator per test file, official SDK clients pointed at it, raw HTTP calls.
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { EmulatorControl } from './control-client.ts';
import { startEmulator } from './index.ts';
import type { EmulatorOptions, RunningEmulator } from './index.ts';

/** An SDK client for the emulator, configured as the brief requires (no retries). */
export function sdkFor(emulator: RunningEmulator, key = 'sk_test_x', extra: Stripe.StripeConfig = {}): Stripe {
  return new Stripe(key, { host: '127.0.0.1', port: emulator.port, protocol: 'http', maxNetworkRetries: 0, ...extra });
}

export interface TestEmulator {
  emulator: RunningEmulator;
  stripe: Stripe;
  control: EmulatorControl;
}

export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, ...options });
  return { emulator, stripe: sdkFor(emulator), control: new EmulatorControl(emulator.controlUrl) };
}

/** One emulator for the test file, started before its tests, reset before each and closed after all; filled in by beforeAll. */
export function useTestEmulator(options: EmulatorOptions = {}): TestEmulator {
  const holder = {} as TestEmulator;
  beforeAll(async () => void Object.assign(holder, await startTestEmulator(options)));
  afterAll(() => holder.emulator.close());
  beforeEach(() => holder.control.reset());
  return holder;
}

/** A raw form-encoded API call, for what the SDK cannot send (bad keys, unknown parameters). */
export async function rawCall(
  emulator: RunningEmulator,
  method: 'GET' | 'POST',
  path: string,
  form = '',
  headers: Record<string, string> = { authorization: 'Bearer sk_test_x' },
): Promise<{ status: number; headers: Headers; body: { error?: Record<string, unknown> } & Record<string, unknown> }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    ...(method === 'POST' ? { body: form } : {}),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, never> };
}

/** Resolves with what `promise` rejected with; fails if it resolved. */
export async function rejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error('expected the call to fail');
}

export const NEXT_YEAR = new Date().getUTCFullYear() + 1;

/** A card payment method from raw card details. */
export const cardParams = (number: string, extra: Partial<Stripe.PaymentMethodCreateParams.Card> = {}): Stripe.PaymentMethodCreateParams => ({
  type: 'card',
  card: { number, exp_month: 12, exp_year: NEXT_YEAR, cvc: '123', ...extra },
});
