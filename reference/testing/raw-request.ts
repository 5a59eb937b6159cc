// Test helper: one HTTP request with its request target sent exactly as written (fetch and inject normalise `\`, `#` and dot segments).
import { request } from 'node:http';

/** Sends `method target` to `baseUrl` (`http://host:port`) with the target as written; resolves to the status and body text. */
export function rawRequest(baseUrl: string, method: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: hostname, port, method, path: target, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
