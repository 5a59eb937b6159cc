// The source-following self-test target over a real socket: each of its differences from credit402, checked with plain HTTP requests.
import { rawRequest, type RawAnswer } from '../testing/raw-request.ts';
import { describe, expect, it } from 'vitest';
import { EmulatorControl } from 'credit402-stripe-emulator';
import { decodeBase64Json, encodeBase64Json } from 'credit402/protocol';
import { createCardPaymentMethod } from '../testing/test-cards.ts';
import { startSourceFollowing } from './source-following-target.ts';
import { useTargetOnEmulator } from './target-on-emulator.ts';

const running = useTargetOnEmulator(startSourceFollowing);

interface Answer { status: number; headers: RawAnswer['headers']; body: unknown }

/** One request, so that an empty `payment` value is sent as such; the body parsed as JSON. */
async function send(method: string, path: string, payment?: string): Promise<Answer> {
  const answer = await rawRequest(running.target.url, method, path, payment === undefined ? {} : { payment });
  return { ...answer, body: answer.body === '' ? undefined : JSON.parse(answer.body) };
}

/** The weather route's challenge as this target words it: no description anywhere, no message. */
const challenge = (extra: Record<string, unknown> = {}) => ({
  stripe402Version: 1,
  resource: { url: '/api/weather' },
  accepts: [{ scheme: 'stripe', currency: 'usd', amount: 500, minTopUp: 50_000, publishableKey: 'pk_test_credit402reference' }],
  ...extra,
});

function expectChallenge(answer: Answer, body: unknown): void {
  expect(answer.status).toBe(402);
  expect(answer.body).toEqual(body);
  expect(decodeBase64Json(String(answer.headers['payment-required']))).toEqual({ ok: true, value: body });
}

describe('source-following target', () => {
  it('does not gate HEAD on a gated GET path, and its router does not run the GET handler (404)', async () => {
    const answer = await send('HEAD', '/api/weather');
    expect(answer.status).toBe(404);
    expect(answer.headers['payment-required']).toBeUndefined();
    expect(answer.headers['payment-response']).toBeUndefined();
  });

  it('answers an empty payment header with the plain challenge, as if it were absent', async () => {
    expectChallenge(await send('GET', '/api/weather', ''), challenge());
    expectChallenge(await send('GET', '/api/weather'), challenge());
  });

  it('answers topUpAmount 0 and -1 with top_up_below_minimum naming both amounts (seed step 5.1)', async () => {
    for (const topUpAmount of [0, -1]) {
      const answer = await send('GET', '/api/weather', encodeBase64Json({ paymentMethodId: 'pm_card_visa', topUpAmount }));
      expect(answer.status).toBe(402);
      expect(answer.body).toEqual({ success: false, creditsRemaining: 0, clientId: '', errorCode: 'top_up_below_minimum', error: expect.stringContaining(`${topUpAmount} units`) });
      expect((answer.body as { error: string }).error).toContain('50000');
    }
  });

  it('sends the insufficient-credits challenge with error but no message', async () => {
    const answer = await send('GET', '/api/weather', encodeBase64Json({ clientId: '0'.repeat(64) }));
    expectChallenge(answer, challenge({ error: 'insufficient_credits' }));
  });

  it('charges as stripe402: its service name, its metadata key, a double-quoted customer search', async () => {
    const control = new EmulatorControl(running.emulator.controlUrl);
    const paymentMethodId = await createCardPaymentMethod(running.emulator.url);
    const answer = await send('GET', '/api/weather', encodeBase64Json({ paymentMethodId }));
    expect(answer.status).toBe(200);
    const [search] = await control.journal({ method: 'GET', path: '/v1/customers/search' });
    expect(search?.params.query).toMatch(/^metadata\["stripe402_client_id"\]:"[0-9a-f]{64}"$/);
    const [customer] = await control.journal({ method: 'POST', path: '/v1/customers' });
    expect(Object.keys(customer?.params.metadata as object)).toEqual(['stripe402_client_id']);
    const [charge] = await control.journal({ method: 'POST', path: '/v1/payment_intents' });
    expect(charge?.params.description).toBe('stripe402 top-up for Weather lookup');
  });
});
