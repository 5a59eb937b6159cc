// What the spec and the profile say the target must answer: effective routes, challenges, clientIds, minor units, descriptions.
import { createHmac } from 'node:crypto';
import type { Declarations } from './declarations.ts';
import type { Profile } from './parameters.ts';
import { isPatternKey, profileKeyOf } from './route-patterns.ts';

/** A gated route with the defaults of CR-2.2 applied (CR-2.20). */
export interface EffectiveRoute {
  /** The profile's route key (for a pattern route, the pattern: what its handler answers as `route`). */
  key: string;
  method: string;
  /** The request path the route was asked for: for an exact key its path, for a pattern the request's (CR-4.14). */
  path: string;
  amount: number;
  currency: string;
  minTopUp: number;
  maxTopUp: number;
  description?: string;
}

/** CR-2.2 defaults. */
const DEFAULTS = { currency: 'usd', minTopUp: 50_000, maxTopUp: 9_999_999_900, serviceName: 'credit402', customerMetadataKey: 'credit402_client_id' } as const;

/** The 64-hex shape of a clientId (CR-6.1, CR-7.3). */
export const CLIENT_ID_SHAPE = /^[0-9a-f]{64}$/;

/** ⌈units / 100⌉ in exact integer arithmetic (CR-1.3). */
export function minorUnits(units: number): number {
  return Number((BigInt(units) + 99n) / 100n);
}

/** Expected values derived from the spec and one profile. */
export class Expectations {
  readonly #profile: Profile;
  readonly #declarations: Declarations;

  constructor(profile: Profile, declarations: Declarations = {}) {
    this.#profile = profile;
    this.#declarations = declarations;
  }

  get publishableKey(): string {
    return this.#profile.stripePublishableKey;
  }

  /** The service name of PaymentIntent descriptions: the target's declaration, else the profile's (a service-defined value). */
  get serviceName(): string {
    return this.#declarations.serviceName ?? this.#profile.serviceName ?? DEFAULTS.serviceName;
  }

  /** The customer metadata key: the target's declaration, else the profile's (a service-defined value). */
  get metadataKey(): string {
    return this.#declarations.customerMetadataKey ?? this.#profile.customerMetadataKey ?? DEFAULTS.customerMetadataKey;
  }

  /** Values that must never appear in an answer (CR-10.5), besides card fingerprints. */
  get secrets(): string[] {
    return [this.#profile.stripeSecretKey, this.#profile.serverSecret];
  }

  /** Gated route keys of the profile. */
  get routeKeys(): string[] {
    return Object.keys(this.#profile.routes);
  }

  /**
   * The gated route a request key (`GET /api/users/42`) or a profile key names, with defaults applied: the exact key, a
   * HEAD key without its own route following GET (CR-4.8), else the most specific pattern (CR-4.12, CR-4.13).
   */
  route(key: string): EffectiveRoute {
    const effectiveKey = profileKeyOf(this.routeKeys, key);
    const config = effectiveKey === undefined ? undefined : this.#profile.routes[effectiveKey];
    if (effectiveKey === undefined || !config) throw new Error(`the profile has no gated route ${key}`);
    const space = effectiveKey.indexOf(' ');
    return {
      key: effectiveKey,
      method: effectiveKey.slice(0, space),
      path: isPatternKey(effectiveKey) ? key.slice(key.indexOf(' ') + 1) : effectiveKey.slice(space + 1),
      amount: config.amount,
      currency: (config.currency ?? DEFAULTS.currency).toLowerCase(),
      minTopUp: config.minTopUp ?? DEFAULTS.minTopUp,
      maxTopUp: config.maxTopUp ?? DEFAULTS.maxTopUp,
      description: config.description,
    };
  }

  /** The plain challenge of CR-5.2/CR-5.3 for a request to `key` whose request path is `requestPath`. */
  challenge(key: string, requestPath?: string): Record<string, unknown> {
    const route = this.route(key);
    const description = route.description !== undefined ? { description: route.description } : {};
    return {
      stripe402Version: 1,
      resource: { url: requestPath ?? route.path, ...description },
      accepts: [
        { scheme: 'stripe', currency: route.currency, amount: route.amount, minTopUp: route.minTopUp, publishableKey: this.publishableKey, ...description },
      ],
    };
  }

  /** clientId = lowercase hex HMAC-SHA256(key = serverSecret, message = fingerprint) (CR-7.3). */
  clientIdOf(fingerprint: string): string {
    return createHmac('sha256', Buffer.from(this.#profile.serverSecret, 'utf8')).update(Buffer.from(fingerprint, 'utf8')).digest('hex');
  }

  /** The PaymentIntent description of CR-7.18 for a request to `key` with request path `requestPath`. */
  description(key: string, requestPath?: string): string {
    const route = this.route(key);
    return `${this.serviceName} top-up for ${route.description ?? requestPath ?? route.path}`;
  }
}
