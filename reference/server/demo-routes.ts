// The reference server's demo handlers: every route answers a small JSON body naming itself and counts its runs.
import type { PaymentResponse } from '../protocol/types.ts';
import type { WebhookHandler } from '../webhooks/webhook-handler.ts';
import { HANDLED_PATH, type HandlerRuns } from './handler-runs.ts';

/** The webhook endpoint an app mounts: the engine and its path. */
export interface WebhookEndpoint {
  handler: WebhookHandler;
  path: string;
}

/** One demo route: method, path and whether credit402 gates it. */
export interface DemoRoute {
  method: string;
  path: string;
  key: string;
  gated: boolean;
}

/** Lists the gated and free routes of the configuration as demo routes. */
export function demoRoutes(gatedKeys: Iterable<string>, freeKeys: readonly string[]): DemoRoute[] {
  const toRoute = (key: string, gated: boolean): DemoRoute => {
    const space = key.indexOf(' ');
    return { method: key.slice(0, space), path: key.slice(space + 1), key, gated };
  };
  return [...[...gatedKeys].map((key) => toRoute(key, true)), ...freeKeys.map((key) => toRoute(key, false))];
}

/** The JSON body a demo handler answers with. */
function demoBody(route: DemoRoute, payment: PaymentResponse | undefined): Record<string, unknown> {
  return {
    route: route.key,
    gated: route.gated,
    ...(payment ? { creditsRemaining: payment.creditsRemaining } : {}),
  };
}

/** Runs a demo route's handler: counts the run under the request's `conformance-request-id`, returns the body to answer. */
export function runDemoHandler(route: DemoRoute, runs: HandlerRuns, requestId: string | readonly string[] | undefined, payment: PaymentResponse | undefined): Record<string, unknown> {
  runs.record(requestId);
  return demoBody(route, payment);
}

/** Whether the app mounts the handled route: always, unless a configured route already answers `GET` on its path. */
export function mountsHandledRoute(routes: readonly DemoRoute[]): boolean {
  return !routes.some((route) => route.path === HANDLED_PATH && (route.method === 'GET' || route.method === 'HEAD'));
}
