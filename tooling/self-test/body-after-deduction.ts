// Mutant target: the JSON body is parsed after the gate has deducted, so a paid POST whose body does not parse is
// answered 400 with its price taken (breaks CR-4.7).
import type { AddressInfo } from 'node:net';
import express from 'express';
import { credit402Middleware } from 'credit402/express';
import { loadServerConfig } from 'credit402/server';
import { HANDLED_PATH, HandlerRuns, REQUEST_ID_HEADER } from 'credit402/internal/conformance-control/handler-runs';
import type { PaymentResponse } from 'credit402/protocol';
import { demoAnswer, demoRoutes, paramsOf } from 'credit402/internal/server/demo-routes';
import { expressErrorAnswers } from 'credit402/internal/server/error-answers';
import { expressPath, takesBareWildcard } from 'credit402/internal/server/express-route-paths';
import { profileGate } from './profile-gate.ts';

const profilePath = process.env.CREDIT402_PROFILE;
if (!profilePath) throw new Error('mutant body-after-deduction: CREDIT402_PROFILE is not set; start it with --target-cmd');
const config = loadServerConfig({ profilePath, env: process.env });
const { gate, store } = await profileGate(config);
const runs = new HandlerRuns();
const app = express();
app.set('case sensitive routing', true);
app.set('strict routing', true);
app.use(credit402Middleware(gate));
// The bug: the body parser comes after the gate, which has decided (and deducted) on a body nobody has read yet.
app.use(express.json());
for (const route of demoRoutes(gate.routes.keys(), config.freeRoutes, config.failingHandlers)) {
  app.all(expressPath(route.path, takesBareWildcard(express)), (req, res, next) => {
    if ((req.method === 'HEAD' ? 'GET' : req.method) !== route.method) return next();
    const params = route.segments === undefined ? undefined : paramsOf(route, Object.values(req.params));
    const answer = demoAnswer(route, runs, req.headers[REQUEST_ID_HEADER], res.locals.credit402 as PaymentResponse | undefined, params);
    res.status(answer.status).json(answer.body);
  });
}
app.get(HANDLED_PATH, (req, res) => void res.json(runs.answer(req.originalUrl)));
app.use(expressErrorAnswers);
const server = app.listen(config.port, config.host, () => {
  console.log(`mutant body-after-deduction listening on http://${config.host}:${(server.address() as AddressInfo).port} (Stripe API ${config.stripeApi})`);
});
const stop = (): void => void server.close(() => void store.close().finally(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
