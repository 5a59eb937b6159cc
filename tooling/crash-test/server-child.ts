// Crash-test child: the reference server as a warm spare; it loads its modules, waits for `start`, serves until SIGKILL.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { startReferenceServer, type ServerConfig } from 'credit402/server';

const [configPath, framework] = process.argv.slice(2);
if (configPath === undefined || (framework !== 'fastify' && framework !== 'express')) {
  throw new TypeError('usage: server-child <config.json> fastify|express');
}
const config = JSON.parse(readFileSync(configPath, 'utf8')) as ServerConfig;

// Load now what the server would load when it starts (the framework, the store driver), so that a start takes milliseconds.
await (framework === 'fastify' ? import('credit402/internal/server/fastify-app') : import('credit402/internal/server/express-app'));
if (config.store.kind === 'sqlite') await import('credit402/stores/sqlite');
if (config.store.kind === 'redis') await import('credit402/stores/redis');
if (config.store.kind === 'postgres') await import('credit402/stores/postgres');

const lines = createInterface({ input: process.stdin });
process.stdout.write('loaded\n');
for await (const line of lines) {
  if (line !== 'start') continue;
  lines.close();
  const server = await startReferenceServer({ ...config, framework });
  process.stdout.write(`ready ${server.url}\n`);
  // The parent holds our stdin: when it ends (the crash test stopped or died), stop too.
  process.stdin.once('end', () => process.exit(0)).resume();
}
