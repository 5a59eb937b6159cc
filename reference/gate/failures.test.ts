// Unit tests for the mapping of processor failures: the processor's message, or exactly "Payment processing failed" without one.
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

describe('processor failures (CR-7.20, CR-8.7, CR-13.35)', () => {
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

  it('CR-7.20 passes on the message of an answer the processor gave, and a card error as card_declined', async () => {
    const answered = new Stripe.errors.StripeAPIError({ message: 'An unexpected error occurred.', type: 'api_error' });
    expect(gotNoAnswer(answered)).toBe(false);
    expect(await outcome(answered)).toMatchObject({ code: 'payment_failed', message: 'An unexpected error occurred.' });
    expect(await outcome(toPaymentError(answered))).toEqual({ code: 'payment_failed', message: 'An unexpected error occurred.', reported: 0 });
    expect(await outcome(new PaymentError('card_declined', 'Your card was declined.'))).toEqual({ code: 'card_declined', message: 'Your card was declined.', reported: 0 });
    expect(await outcome(new Error(''))).toMatchObject({ code: 'payment_failed', message: MESSAGES.PAYMENT_FAILED });
  });
});
