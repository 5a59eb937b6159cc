// Unit tests for the mapping of processor failures: a card error's message, otherwise exactly "Payment processing failed".
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../protocol/constants.ts';
import { PaymentError } from '../processor/processor.ts';
import { toPaymentError } from '../processor/stripe-processor.ts';
import { gotNoAnswer, processorCall } from './failures.ts';

const outcome = async (error: unknown): Promise<{ code: string; message: string; reported: number }> => {
  let reported = 0;
  try {
    await processorCall(() => (reported += 1), 'charge', () => Promise.reject(error));
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(PaymentError);
    return { code: (thrown as PaymentError).code, message: (thrown as PaymentError).message, reported };
  }
  throw new Error('processorCall resolved');
};

const connectionError = (message: string) => new Stripe.errors.StripeConnectionError({ message });
const socketError = (code: string) => Object.assign(new Error(`socket hang up (${code})`), { code });

describe('processor failures (CR-7.20, CR-8.7, CR-13.35, CR-13.37)', () => {
  it('CR-7.20 CR-13.35 answers exactly "Payment processing failed" when the processor gave no answer, whatever the SDK says', async () => {
    const noAnswers = [
      connectionError('An error occurred with our connection to Stripe. Request was retried 1 times.'),
      connectionError('Request aborted due to timeout being reached (500ms)'),
      // As the Stripe processor hands it over: mapped to payment_failed with the SDK's text.
      toPaymentError(connectionError('An error occurred with our connection to Stripe.')),
      socketError('ECONNRESET'),
      socketError('ECONNREFUSED'),
      socketError('UND_ERR_HEADERS_TIMEOUT'),
      new Error('fetch failed', { cause: socketError('ECONNRESET') }),
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      Object.assign(new Error('custom processor lost the answer'), { noAnswer: true }),
    ];
    for (const error of noAnswers) {
      expect(gotNoAnswer(error), String(error)).toBe(true);
      expect(await outcome(error)).toEqual({ code: 'payment_failed', message: MESSAGES.PAYMENT_FAILED, reported: 1 });
    }
  });

  it('CR-7.20 CR-13.37 passes on only the message of a card error; any other answer of the processor gets the fixed message and is reported', async () => {
    const answered = [
      new Stripe.errors.StripeAPIError({ message: 'An unexpected error occurred.', type: 'api_error' }),
      new Stripe.errors.StripeAuthenticationError({ message: 'Invalid API Key provided: sk_test_****abcd', type: 'authentication_error' }),
      new Stripe.errors.StripeInvalidRequestError({ message: 'Unrecognized request URL (GET: /v1/). Please see https://stripe.com/docs', type: 'invalid_request_error' }),
      new Stripe.errors.StripeInvalidRequestError({ message: "No such PaymentMethod: 'pm_x'", type: 'invalid_request_error' }),
      new Error(''),
    ];
    for (const error of answered) {
      expect(gotNoAnswer(error)).toBe(false);
      expect(await outcome(error)).toEqual({ code: 'payment_failed', message: MESSAGES.PAYMENT_FAILED, reported: 1 });
      // As the Stripe processor hands it over: mapped to payment_failed with the processor's message.
      expect(await outcome(toPaymentError(error))).toEqual({ code: 'payment_failed', message: MESSAGES.PAYMENT_FAILED, reported: 1 });
    }
    expect(await outcome(new PaymentError('payment_failed', 'Payment method pm_x is not a card with a fingerprint'))).toEqual({ code: 'payment_failed', message: MESSAGES.PAYMENT_FAILED, reported: 1 });
    const declined = new Stripe.errors.StripeCardError({ message: 'Your card was declined.', type: 'card_error' });
    expect(await outcome(toPaymentError(declined))).toEqual({ code: 'card_declined', message: 'Your card was declined.', reported: 0 });
    expect(await outcome(new PaymentError('card_declined', 'Your card was declined.'))).toEqual({ code: 'card_declined', message: 'Your card was declined.', reported: 0 });
  });
});
