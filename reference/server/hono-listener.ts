// The Hono app on a node:http server through `@hono/node-server` (Node, and Bun's node:http), behind the gate's reading of the request target.
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { applyTargetReading } from '../adapters/node-http/node-http.ts';

/**
 * A node:http server (not listening yet) answering with `app.fetch`. Before `@hono/node-server` builds the `Request`,
 * an ambiguous target (CR-4.10) gets the gate's 400, including those `@hono/node-server` would refuse with a bare
 * 400 of its own (`\` in the path, a target that is not origin-form), and every other target is handed on as the
 * path the gate reads (`/api/%77eather` as `/api/weather`, an absolute form as its path), so that Hono's router and
 * the gate agree (CR-4.9).
 */
export function honoNodeServer(app: Hono): Server {
  const listener = getRequestListener(app.fetch);
  return createServer((req, res) => {
    if (!applyTargetReading(req, res)) void listener(req, res);
  });
}
