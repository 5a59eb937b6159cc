// The Stripe webhook endpoint as a fetch handler: the raw bytes and the signature reach the webhook engine, a body over 1 MiB does not.
import { describe, expect, it } from 'vitest';
import type { WebhookHandler } from '../../webhooks/webhook-handler.ts';
import { credit402WebhookHandler } from './webhook.ts';

/** A webhook engine that records what it was handed and acknowledges it. */
function recordingEngine() {
  const handed: Array<{ body: string; signature: string | undefined }> = [];
  const handler: WebhookHandler = {
    handle: async (rawBody, signature) => {
      handed.push({ body: Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody, signature });
      return { status: 200, body: { received: true, eventId: 'evt_1', action: 'ignored' } };
    },
  };
  return { handler, handed };
}

describe('credit402WebhookHandler', () => {
  it('hands the exact body bytes and the Stripe-Signature header to the engine, and answers its JSON', async () => {
    const { handler, handed } = recordingEngine();
    const payload = '{\n  "id": "evt_1",  "é": true\n}';
    const answer = await credit402WebhookHandler(handler)(new Request('http://h/webhooks/stripe', { method: 'POST', headers: { 'stripe-signature': 't=1,v1=ab' }, body: payload }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({ received: true, eventId: 'evt_1', action: 'ignored' });
    expect(handed).toEqual([{ body: payload, signature: 't=1,v1=ab' }]);
  });

  it('answers 413 to a body over 1 MiB without handing it on, declared or streamed', async () => {
    const { handler, handed } = recordingEngine();
    const webhook = credit402WebhookHandler(handler);
    const big = 'x'.repeat(1024 * 1024 + 1);
    expect((await webhook(new Request('http://h/w', { method: 'POST', headers: { 'content-length': String(big.length) }, body: big }))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(256 * 1024));
        controller.close();
      },
    });
    expect((await webhook(new Request('http://h/w', { method: 'POST', body: stream, duplex: 'half' } as RequestInit))).status).toBe(413);
    expect(handed).toEqual([]);
  });
});
