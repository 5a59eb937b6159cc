// The webhook endpoint's engine: verify, deduplicate, apply; adapters only hand over the raw body and signature.
import { Credit402ConfigError } from '../config/config-error.ts';
import { createErrorLog } from '../gate/index.ts';
import { WebhookSignatureError, type Processor, type ProcessorEvent } from '../processor/processor.ts';
import { NOT_A_TOP_UP } from '../processor/top-up-metadata.ts';
import { hasWebhookSupport, WEBHOOK_STORE_METHODS } from '../stores/capabilities.ts';
import type { Store } from '../stores/store.ts';
import { applyProcessorEvent, type WebhookOutcome } from './handle-event.ts';
import { RETRIEVALS, withProcessorObjects, type RetrievingProcessor } from './processor-objects.ts';

/** Default path of the webhook endpoint. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks/stripe';

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /** A store with `reverseTopUp`, `hasProcessedEvent` and `markEventProcessed` (all shipped stores). */
  store: Store;
  /**
   * A processor with `parseWebhookEvent` and the retrievals of the objects events name (`retrievePaymentIntent`,
   * `retrieveCharge`, `retrieveDispute`): the Stripe processor built with a `webhookSecret`.
   */
  processor: Processor;
  /**
   * Called with every failure while handling an event; default: one line per failure on console.error, with a stack
   * trace per kind of failure at most once a minute (`createErrorLog`, as the gate's default).
   */
  onError?: (error: unknown, stage: string) => void;
}

/**
 * The HTTP answer to one webhook delivery. 2xx tells the processor not to deliver it again. The body
 * names what happened but no client id or balance (the processor keeps webhook answers in its logs).
 */
export interface WebhookResponse {
  status: 200 | 400 | 500;
  body: { received: true; eventId: string; action: WebhookOutcome['action'] | 'duplicate' } | { error: string };
}

/** Handles webhook deliveries; never rejects. */
export interface WebhookHandler {
  handle(rawBody: Buffer | string, signature: string | undefined): Promise<WebhookResponse>;
}

/** A processor that can verify webhook deliveries and retrieve the objects they name. */
type WebhookProcessor = Processor & RetrievingProcessor & Required<Pick<Processor, 'parseWebhookEvent'>>;

function hasWebhookRetrievals(processor: Processor | undefined): processor is WebhookProcessor {
  return typeof processor?.parseWebhookEvent === 'function' && RETRIEVALS.every((name) => typeof processor[name] === 'function');
}

/**
 * How many `t` elements a `Stripe-Signature` header holds. CR-14.2 allows exactly one: with several, the checks could
 * each read another (the SDK verifies with the last, a check of the future the first), so that a delivery signed far
 * ahead would pass as current. Two header lines arrive joined by ", ", so they count twice too.
 */
function timestampsIn(signature: string): number {
  return signature.split(',').filter((element) => element.split('=', 1)[0]?.trim() === 't').length;
}

/**
 * Builds the webhook engine. Answers 400 when the signature does not verify (or its header has more than one `t`), 200 once an event is
 * applied (or was already, or is of no concern), and 500 when the store fails or the processor cannot be asked,
 * so that the processor delivers the event again. An event is applied as the processor's objects say, retrieved
 * by the ids the event names, never as its body says (CR-14.3, CR-14.4). The event id is remembered only after its effect is stored: a crash in
 * between leads to a redelivery, which the idempotent effects absorb.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const { store, processor } = options;
  if (!hasWebhookSupport(store)) {
    throw new Credit402ConfigError('ERR_STORE', `webhooks need a store with ${WEBHOOK_STORE_METHODS.join(', ')}`);
  }
  if (!hasWebhookRetrievals(processor)) {
    throw new Credit402ConfigError('ERR_PROCESSOR', `webhooks need a processor with parseWebhookEvent, ${RETRIEVALS.join(', ')} (a StripeProcessor with webhookSecret)`);
  }
  const parse = processor.parseWebhookEvent.bind(processor);
  const report = options.onError ?? createErrorLog({ prefix: 'credit402 webhook' });

  return {
    async handle(rawBody, signature) {
      if (signature !== undefined && timestampsIn(signature) > 1) {
        return { status: 400, body: { error: 'Webhook signature rejected: the Stripe-Signature header has more than one t (CR-14.2)' } };
      }
      let event: ProcessorEvent;
      try {
        event = await parse(rawBody, signature);
      } catch (error) {
        if (error instanceof WebhookSignatureError) return { status: 400, body: { error: `Webhook signature rejected: ${error.message}` } };
        report(error, 'parseWebhookEvent');
        return { status: 400, body: { error: 'Webhook payload rejected' } };
      }
      try {
        if (await store.hasProcessedEvent(event.id)) return { status: 200, body: { received: true, eventId: event.id, action: 'duplicate' } };
        let confirmed: ProcessorEvent | string;
        try {
          confirmed = await withProcessorObjects(processor, event);
        } catch (error) {
          report(error, `webhook ${event.type}: retrieving its object`);
          return { status: 500, body: { error: 'Event not applied; deliver it again' } };
        }
        const outcome = typeof confirmed === 'string' ? ({ action: 'ignored', reason: confirmed } as const) : await applyProcessorEvent(store, confirmed);
        if (outcome.action === 'ignored' && (typeof confirmed === 'string' || (event.type === 'payment_intent.succeeded' && outcome.reason !== NOT_A_TOP_UP))) {
          report(new Error(`event ${event.id} (${event.type}) not applied: ${outcome.reason}`), `webhook ${event.id}`);
        }
        // An event about an object the processor does not have is not remembered: its id may be one the processor sends later.
        if (typeof confirmed !== 'string') await store.markEventProcessed(event.id).catch((error: unknown) => report(error, 'markEventProcessed'));
        return { status: 200, body: { received: true, eventId: event.id, action: outcome.action } };
      } catch (error) {
        report(error, `webhook ${event.type}`);
        return { status: 500, body: { error: 'Event not applied; deliver it again' } };
      }
    },
  };
}
