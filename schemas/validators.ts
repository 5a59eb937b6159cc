// Ajv validators of the three header schemas, compiled once: the conformance view of the wire objects (closed where the spec closes them).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import paymentSchema from './payment.schema.json' with { type: 'json' };
import paymentRequiredSchema from './payment-required.schema.json' with { type: 'json' };
import paymentResponseSchema from './payment-response.schema.json' with { type: 'json' };

/** Outcome of a schema validation; `errors` are readable lines such as `/topUpAmount must be integer`. */
export type SchemaResult = { ok: true } | { ok: false; errors: string[] };

const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false });
const compiled = {
  payment: ajv.compile(paymentSchema),
  paymentRequired: ajv.compile(paymentRequiredSchema),
  paymentResponse: ajv.compile(paymentResponseSchema),
};

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'false schema') return `${where} must not be present`;
  if (error.keyword === 'additionalProperties') return `${where} must not have the member ${String(params.additionalProperty)}`;
  if (error.keyword === 'const') return `${where} must be ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === 'enum') return `${where} must be one of ${JSON.stringify(params.allowedValues)}`;
  if (error.keyword === 'not') {
    const forbidden = error.schema as { const?: unknown };
    return `${where} must not be ${'const' in forbidden ? JSON.stringify(forbidden.const) : `valid against ${JSON.stringify(forbidden)}`}`;
  }
  return `${where} ${error.message ?? error.keyword}`;
}

function run(validate: ValidateFunction, value: unknown): SchemaResult {
  if (validate(value)) return { ok: true };
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'if').map(describe);
  return { ok: false, errors: [...new Set(errors)] };
}

/** Validates a decoded `payment` request header (unknown members allowed, CR-3.9). */
export function validatePaymentPayload(value: unknown): SchemaResult {
  return run(compiled.payment, value);
}

/** Validates a challenge (`payment-required` header value or 402 body); closed object (CR-5.6). */
export function validatePaymentRequired(value: unknown): SchemaResult {
  return run(compiled.paymentRequired, value);
}

/** Validates a PaymentResponse (`payment-response` header, or a payment-error / 503 body); closed object. */
export function validatePaymentResponse(value: unknown): SchemaResult {
  return run(compiled.paymentResponse, value);
}
