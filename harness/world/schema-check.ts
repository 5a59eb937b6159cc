// Every protocol object a target sends is checked against the header JSON Schemas (schemas/*.schema.json).
import assert from 'node:assert/strict';
import { validatePaymentRequired, validatePaymentResponse, type SchemaResult } from '../../schemas/validators.ts';
import { readable } from './base64-json.ts';
import { checkFor } from './check.ts';
import { answerOf, type Exchange } from './exchange.ts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Schema errors that only say a member is one too many: the closed-object rule of a challenge (CR-5.6, strict). */
const EXTRA_MEMBER = /must not have the member|must not be present/;

/**
 * A challenge as the wire level judges its shape: the `message` of an insufficient-credits challenge is a strict
 * decision (CR-13.13, checked on its own), so a challenge without one is validated as if it had one.
 */
function withMessage(value: unknown): unknown {
  return isObject(value) && 'error' in value && !('message' in value) ? { ...value, message: '(absent: judged by CR-13.13)' } : value;
}

function errorsOf(what: string, value: unknown, validate: (value: unknown) => SchemaResult): string[] {
  const result = validate(value);
  return result.ok ? [] : result.errors.map((error) => `${what}: ${error}`);
}

function fail(errors: readonly string[], value: unknown): void {
  if (errors.length > 0) assert.fail(`the answer breaks its JSON Schema (schemas/):\n    ${errors.join('\n    ')}\n  decoded value: ${JSON.stringify(value)}`);
}

/** The schema errors of an answer's protocol objects (headers and a 402/503 JSON body). */
function schemaErrors(exchange: Exchange): { errors: string[]; value: unknown } {
  const answer = answerOf(exchange);
  const required = readable(answer.paymentRequired);
  const response = readable(answer.paymentResponse);
  const errors = [
    ...(required ? errorsOf('payment-required header', withMessage(required), validatePaymentRequired) : []),
    ...(response ? errorsOf('payment-response header', response, validatePaymentResponse) : []),
  ];
  if ((answer.status === 402 || answer.status === 503) && isObject(answer.json)) {
    const isChallenge = 'stripe402Version' in answer.json;
    errors.push(...errorsOf(`${answer.status} body`, isChallenge ? withMessage(answer.json) : answer.json, isChallenge ? validatePaymentRequired : validatePaymentResponse));
  }
  return { errors: [...new Set(errors)], value: required ?? response ?? answer.json };
}

/** Fails when a decoded protocol header, or a 402/503 JSON body, does not match its schema. */
export function expectSchemaValid(exchange: Exchange): void {
  const { errors, value } = schemaErrors(exchange);
  fail(errors, value);
}

/** An error about `accepts[0]`, the payment requirement of CR-5.3. */
const ACCEPTS = /\/accepts\b/;

/**
 * A challenge's schema check, split by requirement: the members of the challenge object (CR-5.2, wire) and of its
 * payment requirement `accepts[0]` (CR-5.3, wire), no extra members (CR-5.6, strict).
 */
export function expectChallengeSchema(exchange: Exchange): void {
  const { errors, value } = schemaErrors(exchange);
  const shape = errors.filter((error) => !EXTRA_MEMBER.test(error));
  checkFor('CR-5.2', () => fail(shape.filter((error) => !ACCEPTS.test(error)), value));
  checkFor('CR-5.3', () => fail(shape.filter((error) => ACCEPTS.test(error)), value));
  checkFor('CR-5.6', () => fail(errors.filter((error) => EXTRA_MEMBER.test(error)), value));
}
