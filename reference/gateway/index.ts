// credit402/gateway: the gate in front of any HTTP service, as a reverse proxy (needs fastify and @fastify/reply-from; prom-client for metricsPath).
export { buildGatewayApp, startGateway, type GatewayInjections, type RunningGateway } from './start-gateway.ts';
export { loadGatewayConfig, type GatewayConfig, type GatewayOptions } from './gateway-config.ts';
export { createGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
