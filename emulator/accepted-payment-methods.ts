// Which payment method types a PaymentIntent accepts: automatic payment methods, explicit lists, exclusions.
import { invalidRequest } from './errors.ts';
import type { PaymentIntent } from './objects.ts';

/** The PaymentIntent parameters that decide the accepted types. */
interface AcceptanceParams {
  automatic_payment_methods?: { enabled: boolean; allow_redirects?: 'always' | 'never' };
  payment_method_types?: string[];
  allowed_payment_method_types?: string[];
  excluded_payment_method_types?: string[];
}

/** Payment method types this emulator knows; `automatic_payment_methods` enables all of them. */
const KNOWN_TYPES: readonly string[] = ['card', 'us_bank_account'];

const checkTypes = (types: string[], param: string): string[] => {
  const unknown = types.find((t) => !KNOWN_TYPES.includes(t));
  if (unknown !== undefined) {
    throw invalidRequest(`The payment method type "${unknown}" is invalid. Please ensure the provided type is activated in your dashboard.`, { param });
  }
  return types;
};

/**
 * Which payment methods the intent accepts. An explicit list (`payment_method_types` before API version
 * 2026-10-28, `allowed_payment_method_types` since) turns automatic payment methods off; otherwise they are
 * on by default, as in current API versions, minus `excluded_payment_method_types`.
 */
export function acceptedPaymentMethods(
  p: AcceptanceParams,
): Pick<PaymentIntent, 'automatic_payment_methods' | 'payment_method_types' | 'allowed_payment_method_types' | 'excluded_payment_method_types'> {
  const explicitParam = p.payment_method_types ? 'payment_method_types' : p.allowed_payment_method_types ? 'allowed_payment_method_types' : undefined;
  if (p.payment_method_types && p.allowed_payment_method_types) {
    throw invalidRequest('You may only specify one of these parameters: allowed_payment_method_types, payment_method_types.', { code: 'parameters_exclusive' });
  }
  if (explicitParam && p.automatic_payment_methods?.enabled) {
    throw invalidRequest(`You may only specify one of these parameters: automatic_payment_methods, ${explicitParam}.`, { code: 'parameters_exclusive' });
  }
  const excluded = p.excluded_payment_method_types ? checkTypes(p.excluded_payment_method_types, 'excluded_payment_method_types') : null;
  const explicit = p.payment_method_types ?? p.allowed_payment_method_types;
  const listed = explicit ? checkTypes(explicit, explicitParam ?? '') : undefined;
  const automatic = listed ? null : (p.automatic_payment_methods ?? { enabled: true });
  const types = (listed ?? (automatic?.enabled ? KNOWN_TYPES : ['card'])).filter((t) => !excluded?.includes(t));
  if (types.length === 0) throw invalidRequest('No valid payment method types for this PaymentIntent.', { param: 'excluded_payment_method_types' });
  return {
    automatic_payment_methods: automatic && (automatic.allow_redirects ? { enabled: automatic.enabled, allow_redirects: automatic.allow_redirects } : { enabled: automatic.enabled }),
    payment_method_types: types,
    allowed_payment_method_types: (p.allowed_payment_method_types as PaymentIntent['allowed_payment_method_types'] | undefined) ?? null,
    excluded_payment_method_types: (excluded as PaymentIntent['excluded_payment_method_types']) ?? null,
  };
}
