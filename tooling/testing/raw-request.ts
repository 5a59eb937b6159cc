// Test helper: one HTTP request with its request target sent exactly as written (fetch and inject normalise `\`, `#` and dot segments).
import { request } from 'node:http';

/** What {@link rawRequest} resolves to. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends `method target` to `baseUrl` (`http://host:port`) with the target and headers as written; resolves to the status, headers and body text. */
export function rawRequest(baseUrl: string, method: string, target: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: hostname, port, method, path: target, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
