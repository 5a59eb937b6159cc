// The bare Express floor: the same routes as the Fastify floor (paid and free), on Express with the reference app's settings.
import express, { type Express } from 'express';
import type { FloorBalances } from './balances.ts';
import { FLOOR_FREE_ROUTE, FLOOR_PRICE, FLOOR_ROUTE, FREE_BODY, paidClientId, paymentResponse, servedBody } from './paid-request.ts';

/** An Express app serving the floor's paid route on `balances`. */
export function expressFloor(balances: FloorBalances): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.get(FLOOR_ROUTE, async (req, res, next) => {
    try {
      const clientId = paidClientId(req.headers.payment);
      if (clientId === undefined) return void res.status(402).json({ error: 'payment required' });
      const balance = await balances.deduct(clientId, FLOOR_PRICE);
      if (balance === null) return void res.status(402).json({ error: 'insufficient' });
      res.setHeader('payment-response', paymentResponse(clientId, balance));
      res.json(servedBody(balance));
    } catch (error) {
      next(error);
    }
  });
  app.get(FLOOR_FREE_ROUTE, (_req, res) => void res.json(FREE_BODY));
  return app;
}
