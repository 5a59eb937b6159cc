// Error answers of the reference server: a webhook body over the limit, and a handler that throws, are answered JSON
// without stack trace or file path on both frameworks, whatever NODE_ENV.
import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expressErrorAnswers, fastifyErrorAnswers } from './error-answers.ts';
import { loadServerConfig } from '../compose/engine-config.ts';
import { startReferenceServer, type RunningServer } from './start-server.ts';

const SECRET = 'whsec_credit402erroranswers';
const TWO_MB = Buffer.alloc(2 * 1024 * 1024, 'a');

/** Nothing of the server's insides: no stack frame, no absolute path of this checkout or of node_modules. */
function expectNoInsides(text: string): void {
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|\n\s+at /);
  expect(text).not.toContain(process.cwd());
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/<html|<pre>/i);
}

const savedEnv = process.env.NODE_ENV;
afterEach(() => {
  process.env.NODE_ENV = savedEnv;
});

describe.each(['fastify', 'express', 'hono'] as const)('error answers of the reference server on %s', (framework) => {
  it.each(['development', 'production'])('answers a 2 MB webhook body with 413 JSON and no stack or path (NODE_ENV=%s)', async (env) => {
    process.env.NODE_ENV = env;
    const config = loadServerConfig({ overrides: { port: 0, framework, store: { kind: 'memory' }, stripeWebhookSecret: SECRET } });
    let server: RunningServer | undefined;
    try {
      server = await startReferenceServer(config);
      const response = await fetch(server.webhookUrl!, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body: TWO_MB });
      const text = await response.text();
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toMatchObject({ error: 'Payload Too Large' });
      expectNoInsides(text);
    } finally {
      await server?.close();
    }
  });
});

describe('error answer handlers', () => {
  const failing = () => {
    const error = new Error(`ENOENT: no such file or directory, open '${process.cwd()}/secret.json'`);
    return Object.assign(error, { stack: `${error.message}\n    at handler (${process.cwd()}/reference/server/x.ts:1:1)` });
  };

  it('express: a handler that throws is answered 500 JSON with the reason phrase only', async () => {
    process.env.NODE_ENV = 'development';
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const app = express();
    app.get('/boom', () => {
      throw failing();
    });
    app.use(expressErrorAnswers);
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: 'Internal Server Error' });
      expectNoInsides(text);
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
      server.close();
    }
  });

  it('fastify: a handler that throws is answered 500 JSON with the reason phrase only', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const app = Fastify({ logger: false });
    app.setErrorHandler(fastifyErrorAnswers);
    app.get('/boom', async () => {
      throw failing();
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/boom' });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: 'Internal Server Error' });
      expectNoInsides(response.body);
    } finally {
      errors.mockRestore();
      await app.close();
    }
  });
});
