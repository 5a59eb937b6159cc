#!/usr/bin/env node
// `credit402-stripe-emulator [--port 12111] [--host 127.0.0.1] [--search-lag-ms 0] [--stripe-mock-url URL] [--no-control-api]`: the emulator's command line.
import { parseArgs } from 'node:util';
import { startEmulator } from './index.ts';

const USAGE = `usage: credit402-stripe-emulator [--port 12111] [--host 127.0.0.1] [--search-lag-ms 0] [--stripe-mock-url URL] [--no-control-api]`;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '12111' },
    host: { type: 'string', default: '127.0.0.1' },
    'search-lag-ms': { type: 'string', default: '0' },
    'stripe-mock-url': { type: 'string' },
    'no-control-api': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

const integerOption = (name: string, value: string): number => {
  if (!/^\d+$/.test(value)) {
    console.error(`--${name} must be a non-negative integer\n${USAGE}`);
    process.exit(2);
  }
  return Number(value);
};

if (values.help) {
  console.log(USAGE);
} else {
  const port = integerOption('port', values.port);
  const emulator = await startEmulator({
    port,
    host: values.host,
    searchLagMs: integerOption('search-lag-ms', values['search-lag-ms']),
    ...(values['stripe-mock-url'] ? { stripeMockUrl: values['stripe-mock-url'] } : {}),
    ...(values['no-control-api'] ? { controlApi: false } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    console.error(error.code === 'EADDRINUSE' ? `Port ${port} on ${values.host} is already in use; choose another with --port.` : error.message);
    process.exit(1);
  });
  console.log(`Stripe emulator listening at ${emulator.url}`);
  console.log(emulator.controlApi ? `Control API at ${emulator.controlUrl}` : 'Control API off');
  const stop = () => void emulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
