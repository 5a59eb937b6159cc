// Bench child process: an ungated reverse proxy, Fastify with @fastify/http-proxy (undici through @fastify/reply-from), in front of the upstream in argv[2].
import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';
import { serveParent } from '../child-ipc.ts';

// What a Node service would put in front of its upstream without credit402: every request forwarded, nothing charged.
const app = Fastify({ logger: false });
await app.register(proxy, { upstream: process.argv[2] ?? '' });
const url = await app.listen({ host: '127.0.0.1', port: 0 });
serveParent({ url }, () => app.close());
