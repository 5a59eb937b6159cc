#!/usr/bin/env node
// `credit402 serve|gateway|reconcile|client-driver`: the library's command line (the reference server, the gateway in front of any HTTP service, reconciliation of top-ups with Stripe, and credit402/client driven by the conformance kit).
import { gatewayCommand } from './cli/gateway-command.ts';
import { reconcileCommand } from './cli/reconcile-command.ts';
import { serveCommand } from './cli/serve-command.ts';
import { runClientDriver } from './client/driver.ts';

const USAGE = `usage: credit402 <command> [options]

commands
  serve       start the reference server (embedded defaults: SQLite store, in-process Stripe emulator)
  gateway     a reverse proxy that gates the route table in front of any HTTP service (--upstream URL)
  reconcile   credit succeeded Stripe top-ups the store has not credited (--dry-run only reports them)
  client-driver
              credit402/client driven by the conformance kit's client mode, JSON lines on stdin and stdout:
              credit402-conformance client --client-cmd "npx credit402 client-driver"

\`credit402 <command> --help\` lists the command's options.`;

async function main([command, ...args]: string[]): Promise<number | undefined> {
  switch (command) {
    case 'serve':
      return serveCommand(args);
    case 'gateway':
      return gatewayCommand(args);
    case 'reconcile':
      return reconcileCommand(args);
    case 'client-driver':
      await runClientDriver({ stateDir: process.env.CREDIT402_CLIENT_STATE || undefined });
      return 0;
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(command === undefined ? USAGE : `credit402: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then((code) => {
  if (code !== undefined) process.exit(code);
});
