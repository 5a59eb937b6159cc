// A scenario's state and actions for the robustness profile (§14): the webhook endpoint, the current PaymentIntent, deliveries.
import assert from 'node:assert/strict';
import { Before } from '@cucumber/cucumber';
import type { EventRecord } from 'credit402-stripe-emulator';
import { readable } from './base64-json.ts';
import { checkFor } from './check.ts';
import { minorUnits } from './expectations.ts';
import { named } from './named.ts';
import { chargeBehindTarget, ensureWebhook, paymentIntentBehindTarget, redeliverAcknowledged, waitAcknowledged, type BehindTargetCharge } from './processor-events.ts';
import { event, paymentIntent, post, signature, type Delivery, type TopUpEvents } from './signed-events.ts';
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
  /** The PaymentIntents the kit made itself, behind the target's back: not the target's charges (the money audit skips them). */
  readonly kitPaymentIntents = new Set<string>();

  constructor(world: ConformanceWorld) {
    this.#world = world;
  }

  /** The webhook endpoint of the profile: URL and secret. */
  get webhook(): { url: string; secret: string } {
    const secret = this.#world.profile.stripeWebhookSecret;
    if (!secret) throw new Error('the profile has no stripeWebhookSecret: judge up to --level strict, or add the robustness fields (harness/PROFILE.md)');
    return { url: this.#world.webhookUrl, secret };
  }

  /** Registers the target's webhook endpoint with the emulator (once per run). */
  register(): Promise<void> {
    const { url, secret } = this.webhook;
    return ensureWebhook(this.#world.parameters.emulatorUrl, url, secret);
  }

  get paymentIntentId(): string {
    if (this.#paymentIntentId) return this.#paymentIntentId;
    const chargeIds = this.#world.target.exchanges.map((exchange) => readable(exchange.answer?.paymentResponse)?.chargeId);
    const chargeId = chargeIds.reverse().find((id) => id !== undefined);
    if (typeof chargeId !== 'string') throw new Error('no PaymentIntent in this scenario yet: pay first, or charge behind the target');
    this.#paymentIntentId = chargeId;
    return chargeId;
  }

  /** Charges the card at the processor without the target, with the clientId's top-up metadata. */
  async chargeBehindTarget(units: number): Promise<void> {
    const card = this.#world.card();
    this.#paymentIntentId = await chargeBehindTarget(this.#world.parameters.emulatorUrl, this.#world.profile.stripeSecretKey, {
      paymentMethodId: card.paymentMethodId, clientId: card.clientId, units, currency: 'usd',
    });
    this.kitPaymentIntents.add(this.#paymentIntentId);
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
  deliver(body: Record<string, unknown>, how: SignatureCase | 'a valid signature' = 'a valid signature'): Promise<Delivery> {
    const signed: Record<typeof how, (text: string, secret: string) => string | undefined> = {
      'a valid signature': (text, secret) => signature(text, secret),
      'no signature': () => undefined,
      'a malformed signature': () => `t=${Math.floor(Date.now() / 1000)},v1=not-hex`,
      'a signature made with another secret': (text, secret) => signature(text, `${secret}x`),
      'a signature 301 seconds old': (text, secret) => signature(text, secret, Math.floor(Date.now() / 1000) - 301),
      'a signature over other bytes': (_text, secret) => signature(JSON.stringify(body), secret),
    };
    return this.deliverSigned(body, how, signed[how]);
  }

  /**
   * POSTs a harness-built event (as indented JSON) with the `Stripe-Signature` header `sign` makes of that text and the
   * webhook secret (none when it gives undefined); `label` names the signature in the transcript's notes.
   */
  async deliverSigned(body: Record<string, unknown>, label: string, sign: (text: string, secret: string) => string | undefined): Promise<Delivery> {
    const { url, secret } = this.webhook;
    const text = JSON.stringify(body, null, 2);
    const delivery: Delivery = { eventId: String(body.id), type: String(body.type), ...(await post(url, text, sign(text, secret))) };
    this.deliveries.push(delivery);
    this.#world.notes.push(`POST ${url} ${delivery.type} ${delivery.eventId} (${label}) → ${delivery.status} ${delivery.text.slice(0, 200)}`);
    return delivery;
  }

  /**
   * Makes a PaymentIntent at the processor behind the target's back, with the events about the card held at the emulator
   * (recorded, never delivered by it), so that only the harness delivers them, in the order and with the signatures the
   * scenario chooses. The harness's own PaymentIntent creation is left out of the scenario's journal: the scenario's
   * steps judge what the target did with it. Resolves to the PaymentIntent as the processor answered it.
   */
  async #heldPaymentIntent(charge: Partial<BehindTargetCharge>): Promise<Record<string, unknown> & { id: string; status: string }> {
    const card = this.#world.card();
    const processor = this.#world.processor;
    // Only the scenario's own card is held: a shared test payment method (pm_usBankAccount) makes no events here.
    if (charge.paymentMethodId === undefined || charge.paymentMethodId === card.paymentMethodId) await processor.control.holdEvents(card.paymentMethodId);
    const intent = await paymentIntentBehindTarget(this.#world.parameters.emulatorUrl, this.#world.profile.stripeSecretKey, {
      paymentMethodId: card.paymentMethodId, clientId: card.clientId, units: 50_000, currency: 'usd', ...charge,
    });
    await processor.excludeHarnessCall('/v1/payment_intents');
    this.kitPaymentIntents.add(intent.id);
    return intent;
  }

  /** The events the emulator recorded about `objectId` (a PaymentIntent, or a charge), by type. */
  async #recordedEvents(objectId: string): Promise<Map<string, Record<string, unknown>>> {
    const byType = new Map<string, Record<string, unknown>>();
    for (const { event: recorded } of await this.#world.processor.control.events()) {
      const object = recorded.data.object as unknown as Record<string, unknown>;
      if (object.id === objectId || object.payment_intent === objectId || object.charge === objectId) byType.set(recorded.type, recorded as unknown as Record<string, unknown>);
    }
    return byType;
  }

  /** Refunds and disputes `id` (a PaymentIntent or a charge) at the processor by the given minor units (none when 0). */
  async #reverseHeld(id: string, refundCents: number, disputeCents: number): Promise<{ refund?: Record<string, unknown>; dispute?: Record<string, unknown> }> {
    const control = this.#world.processor.control;
    const refund = refundCents > 0 ? (await control.refund(id, refundCents)).event : undefined;
    const dispute = disputeCents > 0 ? (await control.dispute(id, { amount: disputeCents })).event : undefined;
    return { ...(refund ? { refund: refund as unknown as Record<string, unknown> } : {}), ...(dispute ? { dispute: dispute as unknown as Record<string, unknown> } : {}) };
  }

  /**
   * A top-up of `units` for the card's client that the target never saw, made at the processor (CR-14.3), refunded
   * and disputed there by the given minor units (CR-14.4); its events, held at the emulator, are the built events.
   */
  async buildTopUp(units: number, refundCents: number, disputeCents: number): Promise<void> {
    const intent = await this.#heldPaymentIntent({ units });
    if (intent.status !== 'succeeded') throw new Error(`the top-up behind the target is ${intent.status}, not succeeded`);
    const reversals = await this.#reverseHeld(intent.id, refundCents, disputeCents);
    const succeeded = (await this.#recordedEvents(intent.id)).get('payment_intent.succeeded');
    if (!succeeded) throw new Error(`the emulator recorded no payment_intent.succeeded event for ${intent.id}`);
    this.topUp = { paymentIntentId: intent.id, succeeded, ...reversals };
  }

  /**
   * Like {@link buildTopUp} without reversals, plus a charge of the card without a PaymentIntent (as the legacy Charges
   * API makes them) refunded and disputed by the given minor units: the built `refund` and `dispute` are about that charge.
   */
  async buildTopUpAndChargeWithoutPaymentIntent(units: number, chargeCents: number, refundCents: number, disputeCents: number): Promise<void> {
    await this.buildTopUp(units, 0, 0);
    const charge = await this.#world.processor.control.createCharge({ paymentMethod: this.#world.card().paymentMethodId, amount: chargeCents });
    const topUp = this.#builtTopUp();
    this.topUp = { ...topUp, ...(await this.#reverseHeld(charge.id, refundCents, disputeCents)) };
  }

  /** The top-up events built in this scenario; throws when none were. */
  #builtTopUp(): TopUpEvents {
    if (!this.topUp) throw new Error('no top-up events were built in this scenario');
    return this.topUp;
  }

  /** The built event named `succeeded`, `refund` or `dispute`. */
  builtEvent(name: string): Record<string, unknown> {
    const topUp = this.#builtTopUp();
    const found = { succeeded: topUp.succeeded, refund: topUp.refund, dispute: topUp.dispute }[name];
    if (!found) throw new Error(`no "${name}" event was built: succeeded, refund (when refunded) or dispute (when disputed)`);
    return found;
  }

  /**
   * A signed `payment_intent.succeeded` event about a PaymentIntent made at the processor for the card's client with one
   * defect: the processor's PaymentIntent has it, whatever the event body says (CR-14.3).
   */
  async defectiveSucceeded(defect: string, units: number): Promise<Record<string, unknown>> {
    const clientId = this.#world.card().clientId;
    const cents = minorUnits(units);
    const charges: Record<string, Partial<BehindTargetCharge>> = {
      'status processing': { paymentMethodId: 'pm_usBankAccount' },
      'amount_received one minor unit short': { amountCents: cents - 1 },
      'no credit402 metadata': { metadata: {} },
      'a clientId that is not 64 hex': { metadata: { credit402_client_id: clientId.slice(1), credit402_top_up_units: String(units) } },
      'top-up units that are not an integer': { metadata: { credit402_client_id: clientId, credit402_top_up_units: `${units}.5` } },
    };
    const charge = named(charges, defect, 'defect');
    const intent = await this.#heldPaymentIntent({ units, ...charge });
    // The body claims what a creditable top-up would: the target must believe the processor, not the body.
    const claimed = { status: 'succeeded', amount_received: Math.max(cents, Number(intent.amount_received) || 0) };
    return event('payment_intent.succeeded', { ...intent, ...(defect === 'status processing' || defect.startsWith('amount_received') ? claimed : {}) });
  }

  /**
   * A forged, correctly signed `payment_intent.succeeded` event for the card's client (CR-14.3): about a PaymentIntent
   * the processor does not have, or about the built top-up with its units and amount raised.
   */
  forgedSucceeded(forgery: 'unknown' | 'raised', units: number): Record<string, unknown> {
    const clientId = this.#world.card().clientId;
    const cents = minorUnits(units);
    if (forgery === 'unknown') return event('payment_intent.succeeded', paymentIntent(clientId, units, cents));
    const built = this.builtEvent('succeeded') as { data: { object: Record<string, unknown> } };
    const metadata = { credit402_client_id: clientId, credit402_top_up_units: String(units) };
    return event('payment_intent.succeeded', { ...built.data.object, amount: cents, amount_received: cents, metadata });
  }

  /** The built `refund` event with its charge's `payment_intent` set to the built top-up's PaymentIntent (a forged claim). */
  refundClaimingTopUp(): Record<string, unknown> {
    const refund = structuredClone(this.builtEvent('refund')) as { data: { object: Record<string, unknown> } } & Record<string, unknown>;
    refund.data.object.payment_intent = this.#builtTopUp().paymentIntentId;
    return event('charge.refunded', refund.data.object);
  }

  /** The harness made a delivery, and every one (with `lastOnly`, the last) was answered 2xx without a protocol header (CR-14.2). */
  expectAcknowledged(lastOnly = false): void {
    assert.ok(this.deliveries.length > 0, 'no delivery was made');
    checkFor('CR-14.2', () => {
      for (const delivery of lastOnly ? this.deliveries.slice(-1) : this.deliveries) {
        assert.ok(delivery.status >= 200 && delivery.status < 300, `${delivery.type} ${delivery.eventId} answered ${delivery.status}: ${delivery.text}`);
        assert.equal(delivery.headers['payment-required'], undefined, 'the webhook answer carries no payment-required');
        assert.equal(delivery.headers['payment-response'], undefined, 'the webhook answer carries no payment-response');
      }
    });
  }
}

// Scenarios of the profile need the target's endpoint registered with the emulator before they start.
Before({ tags: '@robustness' }, async function (this: ConformanceWorld) {
  await this.robustness.register();
});
