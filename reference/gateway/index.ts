// credit402/gateway: the gate in front of any HTTP service, as a reverse proxy (needs fastify; prom-client for metricsPath; forwards through undici's connection pool).
export { buildGatewayApp, startGateway, type GatewayInjections, type RunningGateway } from './start-gateway.ts';
export { loadGatewayConfig, type GatewayConfig, type GatewayOptions, type UpstreamMatching } from './gateway-config.ts';
export { createGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
