// Validation of the route map into resolved routes with their defaults applied.
import {
  DEFAULT_CURRENCY,
  DEFAULT_MAX_TOP_UP,
  DEFAULT_MIN_TOP_UP,
} from '../protocol/constants.ts';
import { isSupportedCurrency, minimumChargeCents } from '../protocol/currencies.ts';
import type { RouteConfig } from '../protocol/types.ts';
import { unitsToCents } from '../protocol/units.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { parsePattern, type RouteSegment } from './route-pattern.ts';

/** A gated route with every default applied. */
export interface ResolvedRoute {
  key: string;
  method: string;
  /** The key's path: a request path, or a pattern (CR-4.11). */
  path: string;
  /** The pattern's segments; undefined for an exact path. */
  segments?: readonly RouteSegment[];
  amount: number;
  currency: string;
  minTopUp: number;
  maxTopUp: number;
  description?: string;
}

/** An uppercase method, one space, a path of visible ASCII without `?` or `#`. */
const ROUTE_KEY = /^([A-Z][A-Z0-9_-]*) (\/[!"$-><@-~]*)$/;

function isNonNegativeSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A route configuration's fields with their defaults, once {@link checkRouteConfig} accepted it. */
export interface CheckedRouteConfig {
  amount: number;
  currency: string;
  minTopUp: number;
  maxTopUp: number;
  description: string | undefined;
}

/**
 * Checks one route configuration (`{ amount, currency?, minTopUp?, maxTopUp?, description? }`) and returns its fields
 * with their defaults; throws a Credit402ConfigError naming the broken rule, its message starting with `subject` (the
 * route it prices: `route "GET /x"`, or `credit402.route()` for a route whose key is not known yet).
 */
export function checkRouteConfig(config: RouteConfig, subject: string): CheckedRouteConfig {
  if (typeof config !== 'object' || config === null) {
    throw new Credit402ConfigError('ERR_ROUTES', `${subject} must be an object with at least an amount`);
  }
  const { amount } = config;
  const description = config.description ?? undefined;
  if (!isNonNegativeSafeInteger(amount)) {
    throw new Credit402ConfigError('ERR_ROUTE_AMOUNT', `${subject}: amount must be a non-negative safe integer number of units, got ${String(amount)}`);
  }
  const rawCurrency = config.currency ?? DEFAULT_CURRENCY;
  const currency = typeof rawCurrency === 'string' ? rawCurrency.toLowerCase() : '';
  if (!/^[a-z]{3}$/.test(currency) || !isSupportedCurrency(currency)) {
    throw new Credit402ConfigError('ERR_ROUTE_CURRENCY', `${subject}: currency must be the 3-letter code of a supported two-decimal currency (see spec/currencies.json), got ${String(rawCurrency)}`);
  }
  const minTopUp = config.minTopUp ?? DEFAULT_MIN_TOP_UP;
  const smallest = minimumChargeCents(currency);
  if (!isNonNegativeSafeInteger(minTopUp) || minTopUp === 0 || minTopUp < amount || unitsToCents(minTopUp) < smallest) {
    throw new Credit402ConfigError('ERR_ROUTE_MIN_TOP_UP', `${subject}: minTopUp must be a positive safe integer, at least the amount (${amount}) and at least the processor's smallest ${currency} charge (${smallest} minor units = ${smallest * 100} units), got ${String(minTopUp)}`);
  }
  const maxTopUp = config.maxTopUp ?? DEFAULT_MAX_TOP_UP;
  if (!isNonNegativeSafeInteger(maxTopUp) || maxTopUp < minTopUp || maxTopUp > DEFAULT_MAX_TOP_UP) {
    throw new Credit402ConfigError('ERR_ROUTE_MAX_TOP_UP', `${subject}: maxTopUp must be a safe integer between minTopUp (${minTopUp}) and ${DEFAULT_MAX_TOP_UP}, got ${String(maxTopUp)}`);
  }
  if (description !== undefined && (typeof description !== 'string' || description.length === 0)) {
    throw new Credit402ConfigError('ERR_ROUTE_DESCRIPTION', `${subject}: description must be a non-empty string when given`);
  }
  return { amount, currency, minTopUp, maxTopUp, description };
}

/**
 * Validates one route key and its configuration; throws a Credit402ConfigError naming the broken rule. With
 * `patterns` false the key's path is a label in the application router's own syntax (`gate.defineRoute`), not a
 * pattern of CR-4.11, and is not parsed.
 */
export function resolveRoute(key: string, config: RouteConfig, patterns = true): ResolvedRoute {
  const match = ROUTE_KEY.exec(key);
  if (!match) {
    throw new Credit402ConfigError('ERR_ROUTE_KEY', `route key "${key}" must be "<METHOD> <path>": an uppercase method, one space, a path starting with / and without query or fragment`);
  }
  const { amount, currency, minTopUp, maxTopUp, description } = checkRouteConfig(config, `route "${key}"`);
  const path = match[2] as string;
  const segments = patterns ? parsePattern(key, path) : undefined;
  const route: ResolvedRoute = { key, method: match[1] as string, path, amount, currency, minTopUp, maxTopUp };
  if (segments !== undefined) route.segments = segments;
  if (description !== undefined) route.description = description;
  return route;
}

/**
 * Validates the route map; throws a Credit402ConfigError naming the first broken rule. An empty map is valid: a gate
 * whose routes are all priced where the application's router declares them (`gate.route`) has no table.
 */
export function resolveRoutes(routes: unknown): Map<string, ResolvedRoute> {
  if (routes === undefined) return new Map();
  if (typeof routes !== 'object' || routes === null || Array.isArray(routes)) {
    throw new Credit402ConfigError('ERR_ROUTES', 'routes must be an object mapping "<METHOD> <path>" to a route configuration');
  }
  const resolved = new Map<string, ResolvedRoute>();
  for (const [key, config] of Object.entries(routes as Record<string, RouteConfig>)) {
    resolved.set(key, resolveRoute(key, config));
  }
  return resolved;
}
