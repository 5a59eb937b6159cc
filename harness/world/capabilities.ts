// A scenario's use of the optional capabilities: the store faults it armed (removed and counted by its end) and the records it noted.
import { After } from '@cucumber/cucumber';
import type { EventRecord } from 'credit402-stripe-emulator';
import { VERDICT_MEDIA_TYPE, verdictBody } from '../report/verdict-attachment.ts';
import { ControlRoutes, type RecordsView, type StoreFaultSpec, type StoreFaultState } from './control-routes.ts';
import { succeededIntentIds } from './journal-queries.ts';
import type { ConformanceWorld } from './world.ts';

/** How long the kit waits for the processor's events of a charge to reach the target before it lifts an outage. */
const DELIVERY_WAIT_MS = 10_000;

const describeFault = (fault: StoreFaultState): string =>
  `${fault.operation}${fault.replyLost ? ' (reply lost)' : ''}${fault.delayMs === undefined ? '' : ` held ${fault.delayMs} ms${fault.proceed ? ', then proceeding' : ''}`} for client ${fault.clientId.slice(0, 12)}…${fault.skip ? ` after ${fault.skip}` : ''}${fault.count === undefined ? '' : ` × ${fault.count}`}`;

/** The capability view of one scenario. */
export class Capabilities {
  readonly control: ControlRoutes;
  readonly #world: ConformanceWorld;
  /** Clients with faults still armed. */
  readonly #armed = new Set<string>();
  /** Faults removed so far, as they ended. */
  readonly ended: StoreFaultState[] = [];
  /** Records noted by "I note the client's transaction records". */
  noted?: RecordsView;
  /** Faults the target armed without a property the scenario asked for (e.g. `replyLost`), in words. */
  readonly unsupported: string[] = [];
  /** How long the scenario's last fault with `delayMs` holds a call, in ms. */
  holdMs?: number;

  constructor(world: ConformanceWorld) {
    this.#world = world;
    this.control = new ControlRoutes(world.parameters.targetUrl);
  }

  /** Arms a store fault through the target's control route. */
  async arm(spec: StoreFaultSpec): Promise<void> {
    const armed = await this.control.armStoreFault(spec);
    this.#armed.add(spec.clientId);
    if (spec.replyLost === true && armed.replyLost !== true) this.unsupported.push(`${describeFault(armed)} was armed without replyLost`);
    if (spec.delayMs !== undefined && armed.delayMs !== spec.delayMs) this.unsupported.push(`${describeFault(armed)} was armed without delayMs ${spec.delayMs}`);
    if (spec.proceed === true && armed.proceed !== true) this.unsupported.push(`${describeFault(armed)} was armed without proceed`);
    if (spec.delayMs !== undefined) this.holdMs = spec.delayMs;
    this.#world.notes.push(`store fault armed: ${describeFault(armed)}`);
  }

  /** Removes every armed fault of the scenario; returns those that never fired. */
  async clear(): Promise<StoreFaultState[]> {
    for (const clientId of [...this.#armed]) {
      this.#armed.delete(clientId);
      const removed = await this.control.clearStoreFaults(clientId);
      for (const fault of removed) this.#world.notes.push(`store fault removed: ${describeFault(fault)}; fired ${fault.fired} time${fault.fired === 1 ? '' : 's'}`);
      this.ended.push(...removed);
    }
    return this.ended.filter((fault) => fault.fired === 0);
  }

  /**
   * Ends the outage. First the processor's `payment_intent.succeeded` events of the scenario's charges reach the
   * target's webhook endpoint, when the emulator has it registered: a delivery then meets the outage in every run,
   * never the store that is back, so the verdict does not depend on its timing.
   */
  async storeBack(): Promise<void> {
    await this.#chargeEventsDelivered();
    await this.clear();
  }

  /** The PaymentIntent the scenario talks about: its one succeeded charge, else the one charged behind the target. */
  async chargeId(): Promise<string> {
    const ids = succeededIntentIds(await this.#world.processor.scenarioEntries());
    if (ids.length === 1 && ids[0] !== undefined) return ids[0];
    if (ids.length > 1) throw new Error(`the scenario has ${ids.length} succeeded PaymentIntents (${ids.join(', ')}); it must have one`);
    return this.#world.robustness.paymentIntentId;
  }

  /**
   * The `payment_intent.succeeded` event of `paymentIntentId` once it has `attempts` attempts at the target's webhook
   * (one per endpoint registered with its URL); undefined when it has none after `timeoutMs`.
   */
  async deliveredEvent(paymentIntentId: string, attempts = 1, timeoutMs = DELIVERY_WAIT_MS): Promise<EventRecord | undefined> {
    const url = this.#world.webhookUrl;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = (await this.#world.processor.control.events()).find(
        (r) => r.event.type === 'payment_intent.succeeded' && r.event.data.object.id === paymentIntentId,
      );
      const made = record?.attempts.filter((attempt) => attempt.url === url).length ?? 0;
      if (made >= attempts) return record;
      if (Date.now() > deadline) return made > 0 ? record : undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async #chargeEventsDelivered(): Promise<void> {
    const ids = succeededIntentIds(await this.#world.processor.scenarioEntries());
    const endpoints = ids.length === 0 ? 0 : await this.#endpointsAtWebhookUrl();
    if (endpoints === 0) return;
    for (const id of ids) {
      const record = await this.deliveredEvent(id, endpoints);
      const made = record?.attempts.filter((attempt) => attempt.url === this.#world.webhookUrl).length ?? 0;
      if (made < endpoints) this.#world.notes.push(`the event of ${id} reached the target's webhook ${made} of ${endpoints} times within ${DELIVERY_WAIT_MS} ms`);
    }
  }

  /** How many endpoints the emulator has registered with the target's webhook URL (parallel workers may each add one). */
  async #endpointsAtWebhookUrl(): Promise<number> {
    const endpoints = await this.#world.processor.control.webhooks();
    return endpoints.filter((endpoint) => endpoint.url === this.#world.webhookUrl).length;
  }

  /** The records of the card's client. */
  records(): Promise<RecordsView> {
    return this.control.records(this.#world.card().clientId);
  }
}

// Faults never outlive their scenario; one that never fired leaves the scenario inconclusive, as a processor fault does.
After({ tags: '@store-faults' }, async function (this: ConformanceWorld) {
  const view = this.capabilities;
  const unfired = await view.clear();
  if (unfired.length > 0 || view.unsupported.length > 0) {
    const reason = unfired.length > 0
      ? `the injected store fault never fired (${unfired.map(describeFault).join('; ')})`
      : `the target's store faults lack a property the scenario asked for (${view.unsupported.join('; ')})`;
    this.attach(verdictBody({ verdict: 'inconclusive', reason }), VERDICT_MEDIA_TYPE);
  }
});
