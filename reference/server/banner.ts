// The text the reference server prints at start: URL, gated routes with prices, how to pay with a test card.
import { encodeBase64Json } from '../protocol/base64-json.ts';
import { UNITS_PER_MAJOR } from '../protocol/constants.ts';
import { RECORDS_PATH, STORE_FAULTS_PATH } from '../conformance-control/conformance-control.ts';
import type { ServerConfig } from '../compose/engine-config.ts';
import type { RunningServer } from './start-server.ts';

const major = (units: number, currency: string): string => `${(units / UNITS_PER_MAJOR).toFixed(4)} ${currency}`;

function storeLabel(config: ServerConfig): string {
  const { store } = config;
  return store.kind === 'sqlite' ? `sqlite ${store.path}` : store.kind;
}

/** Renders the start-up banner. */
export function banner(config: ServerConfig, server: RunningServer): string {
  // Per-route gating: the gate has no table, the routes are priced where the app declares them.
  const gated = config.gating === 'per-route' ? Object.entries(config.routes).map(([key, route]) => server.gate.defineRoute(key, route)) : [...server.gate.routes.values()];
  const lines = [
    `credit402 reference server (${config.framework}${config.gating === 'per-route' ? ', per-route gating' : ''}, store: ${storeLabel(config)})`,
    `listening on ${server.url}`,
    `Stripe API: ${server.emulator ? `embedded emulator at ${server.stripeApiUrl} (control API: ${server.emulator.controlUrl ?? 'off'})` : server.stripeApiUrl}`,
    ...(server.webhookUrl ? [`Stripe webhooks: POST ${server.webhookUrl}`] : []),
    ...(server.metricsUrl ? [`Prometheus metrics: GET ${server.metricsUrl}`] : []),
    ...(server.storeFaults ? [`conformance control routes (never in production): ${STORE_FAULTS_PATH}, ${RECORDS_PATH}`] : []),
    'gated routes:',
  ];
  for (const route of gated) {
    lines.push(`  ${route.key.padEnd(22)} ${String(route.amount).padStart(6)} units (${major(route.amount, route.currency)}), min top-up ${route.minTopUp} units (${major(route.minTopUp, route.currency)})${route.description ? ` - ${route.description}` : ''}`);
  }
  lines.push(`free routes: ${config.freeRoutes.join(', ') || '(none)'}`);
  const first = gated.find((route) => route.key.startsWith('GET '));
  if (first) {
    const url = `${server.url}${first.path}`;
    lines.push(
      'pay with a test card:',
      `  curl -i ${url}                     # 402 and the challenge`,
      `  curl -i -H 'payment: ${encodeBase64Json({ paymentMethodId: 'pm_card_visa' })}' ${url}`,
      '                                     # charges the minimum top-up, serves, and returns payment-response with your clientId',
      `  curl -i -H "payment: $(printf '{"clientId":"%s"}' <clientId> | base64 -w0)" ${url}`,
      '                                     # spends from the balance, no new charge',
    );
  }
  return lines.join('\n');
}
