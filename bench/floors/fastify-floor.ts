// The bare Fastify floor: a free route answering a constant body, and the paid route that decodes the payment header, makes one store operation and answers.
import Fastify, { type FastifyInstance } from 'fastify';
import type { FloorBalances } from './balances.ts';
import { FLOOR_FREE_ROUTE, FLOOR_PRICE, FLOOR_ROUTE, FREE_BODY, paidClientId, paymentResponse, servedBody } from './paid-request.ts';

/** A Fastify app (not listening) serving the floor's paid route on `balances`. */
export function fastifyFloor(balances: FloorBalances): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get(FLOOR_ROUTE, async (request, reply) => {
    const clientId = paidClientId(request.headers.payment);
    if (clientId === undefined) return reply.code(402).send({ error: 'payment required' });
    const balance = await balances.deduct(clientId, FLOOR_PRICE);
    if (balance === null) return reply.code(402).send({ error: 'insufficient' });
    reply.header('payment-response', paymentResponse(clientId, balance));
    return servedBody(balance);
  });
  app.get(FLOOR_FREE_ROUTE, async () => FREE_BODY);
  return app;
}
