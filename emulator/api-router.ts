// Routes /v1 requests: authentication, URL matching, publishable-key restrictions.
import { PUBLISHABLE_NOT_ALLOWED, authenticate } from './auth.ts';
import { chargeRoutes } from './charges.ts';
import { customerRoutes } from './customers-api.ts';
import { authenticationError, unrecognizedUrl } from './errors.ts';
import { eventRoutes } from './events-api.ts';
import { paymentIntentRoutes } from './payment-intents-api.ts';
import { paymentMethodRoutes } from './payment-methods-api.ts';
import type { ApiRoute } from './context.ts';
import type { KeyKind } from './auth.ts';

const ROUTES: readonly ApiRoute[] = [...paymentMethodRoutes, ...customerRoutes, ...paymentIntentRoutes, ...chargeRoutes, ...eventRoutes];

const safeDecode = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return undefined;
  }
};

/** Matches `path` against a `/v1/things/:id` pattern; returns the named segments or undefined. */
function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    if (segment.startsWith(':')) {
      const decoded = safeDecode(actual);
      if (!decoded) return undefined;
      params[segment.slice(1)] = decoded;
    } else if (segment !== actual) return undefined;
  }
  return params;
}

interface RoutedRequest {
  route: ApiRoute;
  pathParams: Record<string, string>;
  keyKind: KeyKind;
}

/** Authenticates and finds the route; throws Stripe's 401 or 404 otherwise. */
export function routeApiRequest(method: string, path: string, authorization: string | undefined): RoutedRequest {
  const keyKind = authenticate(authorization);
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pathParams = match(route.pattern, path);
    if (!pathParams) continue;
    if (keyKind === 'publishable' && !route.publishable) throw authenticationError(PUBLISHABLE_NOT_ALLOWED);
    return { route, pathParams, keyKind };
  }
  throw unrecognizedUrl(method, path);
}
