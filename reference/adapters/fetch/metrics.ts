// The opt-in metrics endpoint (`metricsPath`) as a fetch handler, for Web-standard servers: Prometheus text of the gate's events, never gated.
import { metricsAnswer, type MetricsEndpoint } from '../../metrics/metrics-endpoint.ts';

/**
 * Answers one request to the metrics endpoint's path (mount it there for every method, outside any gate): 401
 * without the endpoint's bearer token when it has one, the metrics to GET and HEAD, 405 to other methods.
 */
export function metricsFetchHandler(endpoint: MetricsEndpoint): (request: Request) => Promise<Response> {
  return async (request) => {
    const answer = await metricsAnswer(endpoint, request.method, request.headers.get('authorization') ?? undefined);
    return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
  };
}
