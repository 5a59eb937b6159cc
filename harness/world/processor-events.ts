// The emulator's side of §14: the target's webhook endpoint registered once, payments made behind the target's back, deliveries awaited.
import { controlUrlOf, EmulatorControl } from 'credit402-stripe-emulator';
import type { DeliveryAttempt, EventRecord } from 'credit402-stripe-emulator';
import { RequirementFailure } from './check.ts';
import { minorUnits } from './expectations.ts';

const registrations = new Map<string, Promise<void>>();

/** Registers `url` at the emulator of `emulatorUrl` unless an endpoint with that url exists already (once per process and emulator). */
export function ensureWebhook(emulatorUrl: string, url: string, secret: string): Promise<void> {
  const control = new EmulatorControl(controlUrlOf(emulatorUrl));
  const key = `${controlUrlOf(emulatorUrl)} ${url}`;
  let pending = registrations.get(key);
  if (!pending) {
    pending = (async () => {
      const endpoints = await control.webhooks();
      if (!endpoints.some((endpoint) => endpoint.url === url)) await control.registerWebhook(url, secret);
    })();
    pending.catch(() => registrations.delete(key));
    registrations.set(key, pending);
  }
  return pending;
}

const ok = (attempt: DeliveryAttempt): boolean => attempt.status !== null && attempt.status >= 200 && attempt.status < 300;

/** One line per attempt, for assertion messages. */
const describeAttempts = (attempts: DeliveryAttempt[]): string =>
  attempts.map((a) => `${a.time} ${a.url} → ${a.status ?? a.error ?? 'no answer'}`).join('; ') || 'no attempt';

/** Waits until an event matching `predicate` was delivered to `url` with a 2xx; rejects with its attempts otherwise. */
export async function waitAcknowledged(control: EmulatorControl, url: string, predicate: (record: EventRecord) => boolean, timeoutMs = 12_000): Promise<EventRecord> {
  const deadline = Date.now() + timeoutMs;
  let seen: EventRecord | undefined;
  for (;;) {
    seen = (await control.events()).find(predicate);
    if (seen?.attempts.some((attempt) => attempt.url === url && ok(attempt))) return seen;
    // No endpoint at all (404, 405): waiting for a retry cannot help, so say so at once.
    const absent = seen?.attempts.find((attempt) => attempt.url === url && (attempt.status === 404 || attempt.status === 405));
    if (absent) {
      throw new RequirementFailure('CR-14.2', `the target has no webhook endpoint at ${url}: it answered ${absent.status} to the signed ${seen?.event.type} event (a target declaring the robustness profile answers POST <webhookPath> itself)`);
    }
    if (Date.now() > deadline) {
      const what = seen ? `event ${seen.event.id} (${seen.event.type}): ${describeAttempts(seen.attempts)}` : 'no such event at the processor';
      throw new Error(`the target did not acknowledge the event with 2xx within ${timeoutMs} ms: ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Redelivers an event; its attempts to `url` must all be answered 2xx (CR-14.2). */
export async function redeliverAcknowledged(control: EmulatorControl, url: string, eventId: string): Promise<void> {
  const attempts = (await control.redeliver(eventId)).filter((attempt) => attempt.url === url);
  if (attempts.length === 0 || !attempts.every(ok)) throw new Error(`redelivery of ${eventId} was not acknowledged with 2xx: ${describeAttempts(attempts)}`);
}

/** What the harness asks the processor to charge behind the target's back. */
export interface BehindTargetCharge {
  paymentMethodId: string;
  clientId: string;
  units: number;
  currency: string;
  /** Minor units to charge; default ⌈units / 100⌉ (CR-1.3). */
  amountCents?: number;
  /** The PaymentIntent's metadata; default the top-up metadata of CR-7.17 for `clientId` and `units`. */
  metadata?: Record<string, string>;
}

/**
 * Creates and confirms a PaymentIntent at the processor directly, as if the target had died after asking for it;
 * resolves to the PaymentIntent as the processor answered it, whatever its status.
 */
export async function paymentIntentBehindTarget(apiUrl: string, secretKey: string, charge: BehindTargetCharge): Promise<Record<string, unknown> & { id: string; status: string }> {
  const metadata = charge.metadata ?? { credit402_client_id: charge.clientId, credit402_top_up_units: String(charge.units) };
  const form = new URLSearchParams({
    amount: String(charge.amountCents ?? minorUnits(charge.units)),
    currency: charge.currency,
    payment_method: charge.paymentMethodId,
    confirm: 'true',
    'automatic_payment_methods[enabled]': 'true',
    'automatic_payment_methods[allow_redirects]': 'never',
  });
  for (const [key, value] of Object.entries(metadata)) form.set(`metadata[${key}]`, value);
  const response = await fetch(`${apiUrl.replace(/\/$/, '')}/v1/payment_intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as Record<string, unknown> & { id?: string; status?: string; error?: { message?: string } };
  if (!response.ok || typeof body.id !== 'string' || typeof body.status !== 'string') {
    throw new Error(`charging behind the target failed: ${response.status} ${body.error?.message ?? body.status ?? ''}`);
  }
  return body as Record<string, unknown> & { id: string; status: string };
}

/** Creates and confirms a top-up PaymentIntent at the processor directly, as if the target had died after asking for it. */
export async function chargeBehindTarget(apiUrl: string, secretKey: string, charge: BehindTargetCharge): Promise<string> {
  const intent = await paymentIntentBehindTarget(apiUrl, secretKey, charge);
  if (intent.status !== 'succeeded') throw new Error(`charging behind the target failed: the PaymentIntent is ${intent.status}`);
  return intent.id;
}
