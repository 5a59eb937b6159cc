// Route-key paths as Express 4 and 5 paths: each matches what the key's path matches (CR-4.12), declared most specific first (CR-4.13).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import { afterEach, describe, expect, it } from 'vitest';
import { compareRouteSpecificity, matchesRoutePattern, parseRoutePattern } from '../gate/index.ts';
import { rawRequest } from 'credit402-tooling/testing/raw-request';
import { expressPath, inRouterOrder, takesBareWildcard } from './express-route-paths.ts';

const majors = { 'Express 5': express5 as typeof express5, 'Express 4': express4 as typeof express5 };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('expressPath', () => {
  it('keeps named segments, writes the final * for each major, escapes path-to-regexp syntax in literals', () => {
    expect(expressPath('/api/users/:id', false)).toBe('/api/users/:id');
    expect(expressPath('/api/files/*', false)).toBe('/api/files/{*rest}');
    expect(expressPath('/api/files/*', true)).toBe('/api/files/*');
    expect(expressPath('/t/:rest/*', false)).toBe('/t/:rest/{*rest_}');
    expect(expressPath('/a(b)+c/:id', false)).toBe('/a\\(b\\)\\+c/:id');
    expect(expressPath('/', false)).toBe('/');
    expect(takesBareWildcard(express5)).toBe(false);
    expect(takesBareWildcard(express4)).toBe(true);
  });

  const keys = ['/api/users/:id', '/api/files/*', '/api/weather', '/a(b)+c.d/:x', '/v/:a/:b'];
  const targets = ['/api/users/7', '/api/users/', '/api/users/7/', '/api/users/7/x', '/api/users', '/API/users/7', '/api/files/', '/api/files', '/api/files/a/b',
    '/api/files/a%2Fb', '/api/weather', '/api/weather/', '/api/Weather', '/a(b)+c.d/1', '/abbc.d/1', '/a(b)+cxd/1', '/v/1/2', '/v/1', '/v//2'];

  describe.each(Object.keys(majors))('on %s', (major) => {
    it('routes every target to a route exactly when the engine matches it', async () => {
      const express = majors[major as keyof typeof majors];
      const app = express();
      app.set('case sensitive routing', true).set('strict routing', true);
      for (const key of keys) app.get(expressPath(key, takesBareWildcard(express)), (_req, res) => void res.send(key));
      const server = createServer(app);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const target of targets) {
        const engine = keys.find((key) => {
          const segments = parseRoutePattern(`GET ${key}`, key);
          return segments === undefined ? key === target : matchesRoutePattern(segments, target);
        });
        const routed = await rawRequest(url, 'GET', target);
        expect(routed.status === 200 ? routed.body : undefined, `${major} ${target}`).toBe(engine);
      }
    });
  });
});

describe('inRouterOrder', () => {
  it('puts literal before named before * segment by segment, and keeps routes of the same shape in order', () => {
    const routes = ['/api/files/*', '/api/users/:id', '/api/files/:name', '/free', '/api/users/me', '/api/users/:id/x', '/api/weather'].map((path) => ({ path }));
    const ordered = inRouterOrder(routes).map((route) => route.path);
    expect(ordered.indexOf('/api/users/me')).toBeLessThan(ordered.indexOf('/api/users/:id'));
    expect(ordered.indexOf('/api/files/:name')).toBeLessThan(ordered.indexOf('/api/files/*'));
    const segments = (path: string) => parseRoutePattern(`GET ${path}`, path) ?? path.slice(1).split('/').map((text) => ({ kind: 'literal' as const, text }));
    for (let index = 1; index < ordered.length; index++) {
      expect(compareRouteSpecificity(segments(ordered[index - 1] as string), segments(ordered[index] as string))).toBeLessThanOrEqual(0);
    }
    const same = [{ path: '/a/:x', id: 1 }, { path: '/a/:y', id: 2 }];
    expect(inRouterOrder(same).map((route) => route.id)).toEqual([1, 2]);
  });
});
