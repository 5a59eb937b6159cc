// Mutant target: the pre-CR-4.10 Express server: the gate reads targets literally (no refusal) and the router is handed the raw target.
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { PaymentResponse } from 'credit402/protocol';
import { demoAnswer, demoRoutes, paramsOf } from 'credit402/internal/server/demo-routes';
import { expressPath } from 'credit402/internal/server/express-route-paths';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from 'credit402/internal/conformance-control/handler-runs';
import { loadServerConfig } from 'credit402/server';
import { profileGate } from './profile-gate.ts';

/** The request path as the gate read it before CR-4.10: up to `?` or `#`, any scheme's path, unreserved decoded. */
function literalPath(url: string): string {
  const end = url.search(/[?#]/);
  const target = end === -1 ? url : url.slice(0, end);
  const authority = target.indexOf('://');
  const slash = authority === -1 ? -1 : target.indexOf('/', authority + 3);
  const path = target.startsWith('/') ? target : slash === -1 ? '/' : target.slice(slash);
  return path.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(char) ? char : encoded;
  });
}

const profilePath = process.env.CREDIT402_PROFILE;
if (!profilePath) throw new Error('mutant literal-target-gate: CREDIT402_PROFILE is not set; start it with npm run conformance -- --target-cmd');
const config = loadServerConfig({ profilePath, env: process.env });
const { gate, store } = await profileGate(config);
const routes = demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers);
const runs = new HandlerRuns();
const app = express();
app.set('case sensitive routing', true);
app.set('strict routing', true);
// The old middleware: decide on the literal path, never refuse, leave req.url as received.
app.use((req, res, next) => {
  const path = literalPath(req.originalUrl);
  const gated = gate.match(req.method, path) !== undefined;
  if (!gated) return next();
  gate.handle({ method: req.method, url: path, paymentHeader: req.headers.payment }).then((decision) => {
    if (decision.action === 'respond') return void res.writeHead(decision.status, decision.headers).end(JSON.stringify(decision.body));
    if (decision.action === 'serve') {
      for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
      res.locals.credit402 = decision.payment;
    }
    next();
  }, next);
});
for (const route of routes) {
  app.all(expressPath(route.path, false), (req, res, next) => {
    if ((req.method === 'HEAD' ? 'GET' : req.method) !== route.method) return next();
    const params = paramsOf(route, Object.values(req.params));
    const answer = demoAnswer(route, runs, req.headers[REQUEST_ID_HEADER], res.locals.credit402 as PaymentResponse | undefined, params);
    res.status(answer.status).json(answer.body);
  });
}
app.get(HANDLED_PATH, (req, res) => void res.json(runs.answer(req.originalUrl)));
const server = app.listen(config.port, config.host, () => {
  console.log(`mutant literal-target-gate listening on http://${config.host}:${(server.address() as AddressInfo).port} (Stripe API ${config.stripeApi})`);
});
const stop = (): void => void server.close(() => void store.close().finally(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
