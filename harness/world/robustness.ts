// A scenario's state and actions for the robustness profile (§14): the webhook endpoint, the current PaymentIntent, deliveries.
import assert from 'node:assert/strict';
import { Before } from '@cucumber/cucumber';
import { EmulatorControl } from 'credit402-stripe-emulator';
import type { EventRecord } from 'credit402-stripe-emulator';
import { readable } from './base64-json.ts';
import { chargeBehindTarget, ensureWebhook, redeliverAcknowledged, waitAcknowledged } from './processor-events.ts';
import { event, paymentIntent, post, signature, topUpEvents, type Delivery, type TopUpEvents } from './signed-events.ts';
import type { ConformanceWorld } from './world.ts';

/** How a harness-built delivery is signed. */
export type SignatureCase = 'no signature' | 'a malformed signature' | 'a signature made with another secret' | 'a signature 301 seconds old' | 'a signature over other bytes';

/** The robustness view of one scenario. */
export class Robustness {
  readonly #world: ConformanceWorld;
  /** The PaymentIntent the scenario talks about (made behind the target, or the chargeId of the last first payment). */
  #paymentIntentId?: string;
  /** The emulator event last acknowledged by the target. */
  lastEventId?: string;
  /** Events the harness built itself. */
  topUp?: TopUpEvents;
  readonly deliveries: Delivery[] = [];

  constructor(world: ConformanceWorld) {
    this.#world = world;
  }

  /** The webhook endpoint of the profile: URL and secret. */
  get webhook(): { url: string; secret: string } {
    const { stripeWebhookSecret: secret, webhookPath = '/webhooks/stripe' } = this.#world.profile;
    if (!secret) throw new Error('the profile has no stripeWebhookSecret: judge up to --level strict, or add the robustness fields (harness/PROFILE.md)');
    return { url: `${this.#world.parameters.targetUrl.replace(/\/$/, '')}${webhookPath}`, secret };
  }

  /** Registers the target's webhook endpoint with the emulator (once per run). */
  register(): Promise<void> {
    const { url, secret } = this.webhook;
    const controlUrl = `${this.#world.parameters.emulatorUrl.replace(/\/$/, '')}/_emulator`;
    return ensureWebhook(new EmulatorControl(controlUrl), controlUrl, url, secret);
  }

  get paymentIntentId(): string {
    if (this.#paymentIntentId) return this.#paymentIntentId;
    const chargeIds = this.#world.target.exchanges.map((exchange) => readable(exchange.answer?.paymentResponse)?.chargeId);
    const chargeId = chargeIds.reverse().find((id) => id !== undefined);
    if (typeof chargeId !== 'string') throw new Error('no PaymentIntent in this scenario yet: pay first, or charge behind the target');
    return (this.#paymentIntentId = chargeId);
  }

  /** Charges the card at the processor without the target, with the clientId's top-up metadata. */
  async chargeBehindTarget(units: number): Promise<void> {
    const card = this.#world.card();
    this.#paymentIntentId = await chargeBehindTarget(this.#world.parameters.emulatorUrl, this.#world.profile.stripeSecretKey, {
      paymentMethodId: card.paymentMethodId, clientId: card.clientId, units, currency: 'usd',
    });
    this.#world.processor.markers.add(this.#paymentIntentId);
  }

  /** Waits until the target acknowledged (2xx) the event of `type` for the PaymentIntent, or the given event. */
  async acknowledged(type: string, eventId?: string): Promise<EventRecord> {
    const pi = this.paymentIntentId;
    const about = (record: EventRecord): boolean => {
      const object = record.event.data.object as unknown as Record<string, unknown>;
      return object.id === pi || object.payment_intent === pi;
    };
    const record = await waitAcknowledged(this.#world.processor.control, this.webhook.url, (r) => (eventId ? r.event.id === eventId : r.event.type === type && about(r)));
    this.lastEventId = record.event.id;
    this.#world.notes.push(`event ${record.event.id} (${record.event.type}) acknowledged by the target`);
    return record;
  }

  async redeliver(times: number): Promise<void> {
    if (!this.lastEventId) throw new Error('no event was delivered yet in this scenario');
    for (let i = 0; i < times; i++) await redeliverAcknowledged(this.#world.processor.control, this.webhook.url, this.lastEventId);
  }

  /** Refunds (`cents`, or all that is left) or disputes the PaymentIntent at the processor; waits for the target's 2xx. */
  async reverse(kind: 'refund' | 'dispute', cents?: number): Promise<void> {
    const control = this.#world.processor.control;
    const result = kind === 'refund' ? await control.refund(this.paymentIntentId, cents) : await control.dispute(this.paymentIntentId);
    await this.acknowledged(result.event.type, result.event.id);
  }

  /** POSTs a harness-built event, signed as `how` says. */
  async deliver(body: Record<string, unknown>, how: SignatureCase | 'a valid signature' = 'a valid signature'): Promise<Delivery> {
    const { url, secret } = this.webhook;
    const text = JSON.stringify(body, null, 2);
    const signed: Record<typeof how, () => string | undefined> = {
      'a valid signature': () => signature(text, secret),
      'no signature': () => undefined,
      'a malformed signature': () => `t=${Math.floor(Date.now() / 1000)},v1=not-hex`,
      'a signature made with another secret': () => signature(text, `${secret}x`),
      'a signature 301 seconds old': () => signature(text, secret, Math.floor(Date.now() / 1000) - 301),
      'a signature over other bytes': () => signature(JSON.stringify(body), secret),
    };
    const delivery: Delivery = { eventId: String(body.id), type: String(body.type), ...(await post(url, text, signed[how]())) };
    this.deliveries.push(delivery);
    this.#world.notes.push(`POST ${url} ${delivery.type} ${delivery.eventId} (${how}) → ${delivery.status} ${delivery.text.slice(0, 200)}`);
    return delivery;
  }

  /** Builds the three events of a top-up the target never saw, for the card's client. */
  buildTopUp(units: number, refundCents: number, disputeCents: number): void {
    this.topUp = topUpEvents(this.#world.card().clientId, units, refundCents, disputeCents);
  }

  /** The built event named `succeeded`, `refund` or `dispute`. */
  builtEvent(name: string): Record<string, unknown> {
    if (!this.topUp) throw new Error('no top-up events were built in this scenario');
    const found = { succeeded: this.topUp.succeeded, refund: this.topUp.refund, dispute: this.topUp.dispute }[name];
    if (!found) throw new Error(`unknown event "${name}": succeeded, refund or dispute`);
    return found;
  }

  /** A `payment_intent.succeeded` event for the card's client with one defect. */
  defectiveSucceeded(defect: string, units: number): Record<string, unknown> {
    const clientId = this.#world.card().clientId;
    const cents = Math.ceil(units / 100);
    const overrides: Record<string, Record<string, unknown>> = {
      'status processing': { status: 'processing', amount_received: 0 },
      'amount_received one minor unit short': { amount_received: cents - 1 },
      'no credit402 metadata': { metadata: {} },
      'a clientId that is not 64 hex': { metadata: { credit402_client_id: clientId.slice(1), credit402_top_up_units: String(units) } },
      'top-up units that are not an integer': { metadata: { credit402_client_id: clientId, credit402_top_up_units: `${units}.5` } },
    };
    const override = overrides[defect];
    if (!override) throw new Error(`unknown defect "${defect}"; known: ${Object.keys(overrides).join(', ')}`);
    return event('payment_intent.succeeded', paymentIntent(clientId, units, cents, override));
  }

  /** Every harness delivery since `from` was answered 2xx without a protocol header (CR-14.2). */
  expectAcknowledged(from = 0): void {
    for (const delivery of this.deliveries.slice(from)) {
      assert.ok(delivery.status >= 200 && delivery.status < 300, `${delivery.type} ${delivery.eventId} answered ${delivery.status}: ${delivery.text}`);
      assert.equal(delivery.headers['payment-required'], undefined, 'the webhook answer carries no payment-required');
      assert.equal(delivery.headers['payment-response'], undefined, 'the webhook answer carries no payment-response');
    }
  }
}

const views = new WeakMap<ConformanceWorld, Robustness>();

/** The scenario's robustness view. */
export function robustness(world: ConformanceWorld): Robustness {
  let view = views.get(world);
  if (!view) views.set(world, (view = new Robustness(world)));
  return view;
}

// Scenarios of the profile need the target's endpoint registered with the emulator before they start.
Before({ tags: '@robustness' }, async function (this: ConformanceWorld) {
  await robustness(this).register();
});
