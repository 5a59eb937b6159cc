// The gate engine: routing, header decoding and the credits path; knows nothing of any HTTP framework.
import { isClientIdShape } from '../protocol/identity.ts';
import { parsePaymentHeader } from '../protocol/payment-payload.ts';
import { PaymentError } from '../processor/processor.ts';
import { payByCard } from './card-payment.ts';
import type { GateContext, GatedRoute } from './context.ts';
import type { GateDecision, GateRequest } from './decision.ts';
import { StoreUnavailableError } from './failures.ts';
import { refundOnce } from './handler-refund.ts';
import { validateGateOptions, type GateOptions } from './options.ts';
import { buildChallenges, paymentError, serve, serviceUnavailable } from './responses.ts';
import { resolveRoutes } from './routes.ts';
import { deductPrice } from './spend.ts';

/** A configured gate: decides what happens to each request. */
export interface Gate {
  /** Decides one request; rejects only on a programming error, never on bad input or an outage. */
  handle(request: GateRequest): Promise<GateDecision>;
  /** The gated routes with their defaults applied, keyed `<METHOD> <path>`. */
  readonly routes: ReadonlyMap<string, GatedRoute>;
}

const PASS: GateDecision = { action: 'pass' };

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Decodes percent-encoded unreserved characters only (RFC 3986 §6.2.2.2): `/api/%77eather` is `/api/weather`. */
function decodeUnreserved(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : encoded;
  });
}

/** The path of a request target (origin or absolute form), without query or fragment, otherwise as received. */
function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  const target = end === -1 ? url : url.slice(0, end);
  if (target.startsWith('/')) return decodeUnreserved(target);
  const authority = target.indexOf('://');
  const slash = authority === -1 ? -1 : target.indexOf('/', authority + 3);
  return slash === -1 ? '/' : decodeUnreserved(target.slice(slash));
}

/** The gated route of a request; HEAD falls back to GET because frameworks run GET handlers for HEAD. */
function routeOf(routes: ReadonlyMap<string, GatedRoute>, method: string, path: string): GatedRoute | undefined {
  return routes.get(`${method} ${path}`) ?? (method === 'HEAD' ? routes.get(`GET ${path}`) : undefined);
}

async function decide(ctx: GateContext, route: GatedRoute, rawHeader: string | readonly string[]): Promise<GateDecision> {
  const parsed = parsePaymentHeader(typeof rawHeader === 'string' ? rawHeader : rawHeader.join(', '));
  if (!parsed.ok) return paymentError('invalid_payment', parsed.message);
  const { clientId, paymentMethodId, topUpAmount } = parsed.payload;
  if (clientId !== undefined) {
    const balance = isClientIdShape(clientId) ? await deductPrice(ctx, route, clientId) : null;
    if (balance !== null) return serve({ success: true, creditsRemaining: balance, clientId });
  }
  if (paymentMethodId === undefined) {
    return clientId === undefined ? route.challenges.plain : route.challenges.insufficient;
  }
  return payByCard(ctx, route, paymentMethodId, topUpAmount);
}

/** Builds a gate; throws a Credit402ConfigError when the options are invalid. */
export function createGate(options: GateOptions): Gate {
  const { serviceName, onError, lock, refundOnHandlerError } = validateGateOptions(options);
  const routes = new Map<string, GatedRoute>();
  for (const [key, route] of resolveRoutes(options.routes)) {
    routes.set(key, { ...route, challenges: buildChallenges(route, options.stripePublishableKey) });
  }
  const ctx: GateContext = {
    store: options.store,
    processor: options.processor,
    serverSecret: options.serverSecret,
    serviceName,
    report: onError,
    lock,
  };
  return {
    routes,
    async handle(request: GateRequest): Promise<GateDecision> {
      const route = routeOf(routes, request.method, pathOf(request.url));
      if (route === undefined) return PASS;
      if (request.paymentHeader === undefined) return route.challenges.plain;
      try {
        const decision = await decide(ctx, route, request.paymentHeader);
        if (refundOnHandlerError && decision.action === 'serve') decision.refund = refundOnce(ctx, decision.payment.clientId, route.amount);
        return decision;
      } catch (error) {
        if (error instanceof StoreUnavailableError) return serviceUnavailable(error.message);
        if (error instanceof PaymentError) return paymentError(error.code, error.message);
        throw error;
      }
    },
  };
}
