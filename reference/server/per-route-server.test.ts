// The reference server with per-route gating (`gating: "per-route"`) on Fastify, Express 5 and Express 4, over real sockets; and the option's checks.
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { useReferenceStack } from 'credit402-tooling/testing/reference-stack';
import { loadServerConfig } from '../compose/engine-config.ts';

/** The profile's routes and route patterns (spec CR-4.11), literal beside named beside `*`, declared least specific first. */
const routes = {
  'GET /api/files/*': { amount: 40 },
  'GET /api/files/:name': { amount: 30 },
  'GET /api/users/:id': { amount: 20, description: 'A user' },
  'GET /api/users/me': { amount: 10 },
  'GET /api/weather': { amount: 500, description: 'Weather lookup' },
  'POST /api/translate': { amount: 2500, currency: 'eur', minTopUp: 100_000 },
};

describe('server configuration: gating', () => {
  it('reads table or per-route from the configuration, CREDIT402_GATING and --gating; table by default', () => {
    expect(loadServerConfig().gating).toBeUndefined();
    expect(loadServerConfig({ env: { CREDIT402_GATING: 'per-route' } }).gating).toBe('per-route');
    expect(loadServerConfig({ env: { CREDIT402_GATING: 'per-route' }, overrides: { gating: 'table' } }).gating).toBe('table');
  });

  it('refuses another mode, and per-route on plain node:http, with ERR_SERVER_CONFIG', () => {
    expect(codeOf(() => loadServerConfig({ env: { CREDIT402_GATING: 'router' } }))).toBe('ERR_SERVER_CONFIG');
    expect(() => loadServerConfig({ overrides: { gating: 'per-route', framework: 'http' } })).toThrow(/fastify, express or hono/);
  });
});

describe.each([
  ['fastify', {}],
  ['express', {}],
  ['express4', { express: express4 }],
] as const)('the per-route reference server on %s', (name, injected) => {
  const stack = useReferenceStack({ framework: name === 'fastify' ? 'fastify' : 'express', gating: 'per-route', routes, freeRoutes: ['GET /free', 'POST /api/weather'] }, injected);

  it('has no route table: the router decides what is gated, and every gated route is priced where it is declared', async () => {
    const { url, gate } = stack.server;
    expect(gate.routes.size).toBe(0);
    expect(await paidFetch(url, 'GET /api/weather')).toMatchObject({ status: 402, paymentRequired: { resource: { url: '/api/weather', description: 'Weather lookup' } } });
    expect(await paidFetch(url, 'GET /api/%77eather?city=Oslo')).toMatchObject({ status: 402, paymentRequired: { resource: { url: '/api/weather' } } });
    expect((await fetch(`${url}/api/weather`, { method: 'HEAD' })).status).toBe(402);
    expect(await paidFetch(url, 'POST /api/translate')).toMatchObject({ status: 402, paymentRequired: { accepts: [{ currency: 'eur', amount: 2500 }] } });
    for (const route of ['GET /free', 'POST /api/weather']) expect(await paidFetch(url, route, 'not base64 at all'), route).toMatchObject({ status: 200, body: { route, gated: false } });
    for (const target of ['/API/weather', '/api/weather/', '//api/weather']) expect((await rawRequest(url, 'GET', target)).status, target).toBe(404);
    expect(JSON.parse((await rawRequest(url, 'GET', '/api\\weather')).body)).toMatchObject({ error: 'ambiguous_request_target' });
  });

  it('routes patterns most specific first: literal before named before *, each at its own price', async () => {
    const { url } = stack.server;
    const priceOf = async (path: string) => ((await paidFetch(url, `GET ${path}`)).paymentRequired as { accepts: Array<{ amount: number }> } | undefined)?.accepts[0]?.amount;
    expect(await priceOf('/api/users/me')).toBe(10);
    expect(await priceOf('/api/users/7')).toBe(20);
    expect(await priceOf('/api/files/a.txt')).toBe(30);
    expect(await priceOf('/api/files/a/b')).toBe(40);
    // An empty segment is no `:name` (CR-4.12): the Fastify app declares `:name(^.+$)`, so `*` takes it on both.
    expect(await priceOf('/api/files/')).toBe(40);
    expect((await paidFetch(url, 'GET /api/files')).status).toBe(404);
  });

  it('pays with a card, then spends, and the payment reaches the handler', async () => {
    const { url } = stack.server;
    const paid = await paidFetch(url, 'GET /api/users/7', { paymentMethodId: 'pm_card_visa' });
    expect(paid).toMatchObject({ status: 200, body: { route: 'GET /api/users/:id', gated: true, creditsRemaining: 49_980 } });
    const { clientId } = paid.paymentResponse as { clientId: string };
    expect(await paidFetch(url, 'HEAD /api/users/me', { clientId })).toMatchObject({ status: 200, paymentResponse: { creditsRemaining: 49_970 } });
  });
});
