// A scenario's view of the kit's controlled upstream (capability `gateway`, spec §15): faults armed by request id, connections refused, what reached it.
import { After } from '@cucumber/cucumber';
import { VERDICT_MEDIA_TYPE, verdictBody } from '../report/verdict-attachment.ts';
import { runUpstream, type ControlledUpstream, type UpstreamArrival, type UpstreamFault } from './controlled-upstream.ts';
import type { Exchange } from './exchange.ts';
import { newRequestId, REQUEST_ID_HEADER } from './http-client.ts';
import type { ConformanceWorld } from './world.ts';

/** How long the kit waits for a gateway in front of a stalled upstream to answer (its upstream timeout must be shorter: PROFILE.md). */
export const STALL_WAIT_MS = 30_000;

/** What the scenario made the upstream do: a fault on one request, or connections refused. */
export type GatewayFailure = UpstreamFault | 'refuse';

/** The gateway view of one scenario. */
export class GatewayView {
  readonly #world: ConformanceWorld;
  /** Request ids whose fault the scenario armed, with the fault. */
  readonly #armed = new Map<string, UpstreamFault>();

  constructor(world: ConformanceWorld) {
    this.#world = world;
  }

  /** The run's controlled upstream; fails when the runner started none in this process. */
  get upstream(): ControlledUpstream {
    const upstream = runUpstream();
    if (!upstream) throw new Error('the kit runs no controlled upstream in this process: the gateway capability needs --target-cmd and no --parallel');
    return upstream;
  }

  /**
   * Sends `payment` to `line` with a request id chosen here, on which `failure` is armed first (`refuse`: the upstream
   * stops accepting connections before the request). A stalled request is waited for {@link STALL_WAIT_MS}.
   */
  async sendFailing(line: string, payment: string, failure: GatewayFailure): Promise<Exchange> {
    const requestId = newRequestId();
    if (failure === 'refuse') {
      await this.upstream.refuseConnections();
      this.#world.notes.push('the upstream refuses connections');
    } else {
      this.upstream.arm(requestId, failure);
      this.#armed.set(requestId, failure);
      this.#world.notes.push(`upstream fault armed: ${failure} on conformance-request-id ${requestId}`);
    }
    const timeoutMs = failure === 'stall' ? STALL_WAIT_MS : undefined;
    return this.#world.sendPayload(line, payment, { headers: { [REQUEST_ID_HEADER]: requestId }, ...(timeoutMs ? { timeoutMs } : {}) });
  }

  /** The upstream answers again: connections are accepted, armed faults stay on their (used) request ids. */
  async answersAgain(): Promise<void> {
    await this.upstream.acceptConnections();
  }

  /** Every arrival at the upstream of the request of `exchange` (none when it never reached it). */
  arrivals(exchange: Exchange): UpstreamArrival[] {
    return exchange.requestId === undefined ? [] : this.upstream.arrivals(exchange.requestId);
  }

  /** How often the upstream ran the handler of the request of `exchange`. */
  runs(exchange: Exchange): number {
    return exchange.requestId === undefined ? 0 : this.upstream.handlers.runs(exchange.requestId);
  }

  /** Armed faults whose request never reached the upstream, in words. */
  unfired(): string[] {
    return [...this.#armed].filter(([requestId]) => this.upstream.arrivals(requestId).length === 0).map(([requestId, fault]) => `${fault} on ${requestId}`);
  }

  /** Ends the scenario's use of the upstream: connections accepted again, its faults and answer headers dropped. */
  async end(): Promise<void> {
    const upstream = runUpstream();
    if (!upstream) return;
    await upstream.acceptConnections();
    upstream.disarm();
  }
}

// The upstream never stays refusing or armed past its scenario; a fault whose request never reached it leaves the scenario inconclusive.
After({ tags: '@gateway' }, async function (this: ConformanceWorld) {
  const view = this.gateway;
  const unfired = runUpstream() ? view.unfired() : [];
  await view.end();
  if (unfired.length > 0) {
    this.attach(verdictBody({ verdict: 'inconclusive', reason: `the upstream fault never met its request (${unfired.join('; ')}): the gateway did not forward it` }), VERDICT_MEDIA_TYPE);
  }
});
