// Steps of the settled spec points (features/13-spec-points.feature and the last scenarios of 14-robustness.feature):
// several `payment` header lines (CR-13.36), Stripe-Signature headers with several v1 values or a future timestamp
// (CR-14.2), refunds or disputes of a charge without a PaymentIntent (CR-14.4), and the message of a processor that
// gave no answer (CR-13.35).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { encode } from '../world/base64-json.ts';
import { checkFor, firstOf } from '../world/check.ts';
import { expectPaymentError } from '../world/judge.ts';
import { named } from '../world/named.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then, When } from './define.ts';

When(
  'I send the payment header lines {string} and {string} to {string}',
  'CR-4.6',
  async function (this: ConformanceWorld, first: string, second: string, line: string) {
    const lines = [first, second].map((payload) => this.fill(payload));
    for (const id of lines.join(' ').match(/pm_[A-Za-z0-9_]+/g) ?? []) this.processor.markers.add(id);
    // Two field lines of one name: the target must read them as one comma-joined value (CR-3.4, CR-13.36).
    await this.send(line, { payment: lines.map((json) => encode(json)) });
  },
);

const v1 = (secret: string, timestamp: number, body: string): string => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
const DAY = 86_400;

/** `Stripe-Signature` headers beyond the one-`v1` form, by the name the features use; `now` in unix seconds. */
const SIGNED: Readonly<Record<string, (secret: string, body: string, now: number) => string>> = {
  'a timestamp 1 day ahead': (secret, body, now) => `t=${now + DAY},v1=${v1(secret, now + DAY, body)}`,
  'a timestamp 299 seconds ahead': (secret, body, now) => `t=${now + 299},v1=${v1(secret, now + 299, body)}`,
  'a timestamp 301 seconds ahead': (secret, body, now) => `t=${now + 301},v1=${v1(secret, now + 301, body)}`,
  'a wrong v1 before the valid one': (secret, body, now) => `t=${now},v1=${v1(`${secret}old`, now, body)},v1=${v1(secret, now, body)}`,
  'the valid v1 before a wrong one': (secret, body, now) => `t=${now},v1=${v1(secret, now, body)},v1=${v1(`${secret}old`, now, body)}`,
  'the valid v1 and a v0': (secret, body, now) => `t=${now},v1=${v1(secret, now, body)},v0=${v1(`${secret}v0`, now, body)}`,
  'only wrong v1 values': (secret, body, now) => `t=${now},v1=${v1(`${secret}old`, now, body)},v1=${v1(secret, now, `${body} `)}`,
  'the valid signature as v0 only': (secret, body, now) => `t=${now},v0=${v1(secret, now, body)}`,
};

When(
  'its {string} event is delivered to the webhook, signed with {string}',
  'CR-14.2',
  async function (this: ConformanceWorld, name: string, how: string) {
    const sign = named(SIGNED, how, 'signature form');
    const now = Math.floor(Date.now() / 1000);
    await this.robustness.deliverSigned(this.robustness.builtEvent(name), `signed with ${how}`, (text, secret) => sign(secret, text, now));
  },
);

/** How an event's object loses its PaymentIntent (CR-14.4). */
const WITHOUT_PAYMENT_INTENT: Readonly<Record<string, (object: Record<string, unknown>) => void>> = {
  removed: (object) => {
    delete object.payment_intent;
  },
  null: (object) => {
    object.payment_intent = null;
  },
  empty: (object) => {
    object.payment_intent = '';
  },
};

When(
  'its {string} event is delivered to the webhook with its payment_intent {string}',
  firstOf(['CR-14.2', 'CR-14.4'], 'CR-14.4'),
  async function (this: ConformanceWorld, name: string, how: string) {
    const strip = named(WITHOUT_PAYMENT_INTENT, how, 'payment_intent change');
    const event = structuredClone(this.robustness.builtEvent(name)) as { data: { object: Record<string, unknown> } } & Record<string, unknown>;
    strip(event.data.object);
    await this.robustness.deliver(event);
  },
);

Then(
  'the answer is the payment error {string} with message {string}, as the processor gave no answer',
  // Another processor failure than a card error is payment_failed at the wire level (CR-7.20); the message is CR-13.35's.
  'CR-7.20',
  function (this: ConformanceWorld, code: string, message: string) {
    const text = expectPaymentError(this.last, code);
    checkFor('CR-13.35', () => assert.equal(text, message, 'the error message when the processor gave no answer'));
  },
);
