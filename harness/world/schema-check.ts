// Every protocol object a target sends is checked against the header JSON Schemas (schemas/*.schema.json).
import assert from 'node:assert/strict';
import { validatePaymentRequired, validatePaymentResponse, type SchemaResult } from '../../schemas/validators.ts';
import { answerOf, type Exchange } from './exchange.ts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function expectValid(what: string, value: unknown, validate: (value: unknown) => SchemaResult): void {
  const result = validate(value);
  if (!result.ok) {
    assert.fail(`the ${what} breaks its JSON Schema (schemas/):\n    ${result.errors.join('\n    ')}\n  decoded value: ${JSON.stringify(value)}`);
  }
}

/** Fails when a decoded protocol header, or a 402/503 JSON body, does not match its schema. */
export function expectSchemaValid(exchange: Exchange): void {
  const answer = answerOf(exchange);
  if (answer.paymentRequired?.ok) expectValid('payment-required header', answer.paymentRequired.value, validatePaymentRequired);
  if (answer.paymentResponse?.ok) expectValid('payment-response header', answer.paymentResponse.value, validatePaymentResponse);
  if ((answer.status === 402 || answer.status === 503) && isObject(answer.json)) {
    const isChallenge = 'stripe402Version' in answer.json;
    expectValid(`${answer.status} body`, answer.json, isChallenge ? validatePaymentRequired : validatePaymentResponse);
  }
}
