// ControlRoutes: the kit's client of a target's control routes, against a stub target; answers read strictly.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlRouteError, ControlRoutes, parseFault, parseRecordsView, RECORDS_PATH, STORE_FAULTS_PATH } from './control-routes.ts';

const A = 'a'.repeat(64);
const requests: Array<{ method: string; url: string; body: string }> = [];
let answers: Record<string, [number, string]> = {};
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', body });
      const [status, text] = answers[`${req.method} ${(req.url ?? '').split('?')[0]}`] ?? [404, 'Not Found'];
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('ControlRoutes', () => {
  it('arms a fault with a JSON body and reads the fault back', async () => {
    answers = { [`POST ${STORE_FAULTS_PATH}`]: [201, JSON.stringify({ fault: { clientId: A, operation: 'getClient', skip: 1, fired: 0 } })] };
    const fault = await new ControlRoutes(url).armStoreFault({ clientId: A, operation: 'getClient', skip: 1 });
    expect(fault).toEqual({ clientId: A, operation: 'getClient', skip: 1, fired: 0 });
    expect(requests.at(-1)).toEqual({ method: 'POST', url: STORE_FAULTS_PATH, body: JSON.stringify({ clientId: A, operation: 'getClient', skip: 1 }) });
  });

  it("removes a client's faults and reads how often each fired", async () => {
    answers = { [`DELETE ${STORE_FAULTS_PATH}`]: [200, JSON.stringify({ faults: [{ clientId: A, operation: 'any', skip: 0, fired: 3 }] })] };
    expect(await new ControlRoutes(url).clearStoreFaults(A)).toEqual([{ clientId: A, operation: 'any', skip: 0, fired: 3 }]);
    expect(requests.at(-1)?.url).toBe(`${STORE_FAULTS_PATH}?clientId=${A}`);
  });

  it('reads the records of a client', async () => {
    answers = { [`GET ${RECORDS_PATH}`]: [200, JSON.stringify({ client: null, records: [] })] };
    expect(await new ControlRoutes(url).records(A)).toEqual({ client: null, records: [] });
  });

  it('says which route answered what when the target does not offer a capability it declares', async () => {
    answers = {};
    await expect(new ControlRoutes(url).records(A)).rejects.toThrow(/GET \/_conformance\/records\?clientId=a+ answered 404 instead of 200 \(does the target offer the capability/);
    answers = { [`POST ${STORE_FAULTS_PATH}`]: [201, 'armed'] };
    await expect(new ControlRoutes(url).armStoreFault({ clientId: A, operation: 'getClient' })).rejects.toThrow(/without a JSON body/);
    await expect(new ControlRoutes('http://127.0.0.1:1/').records(A)).rejects.toBeInstanceOf(ControlRouteError);
  });
});

describe('answers of the control routes', () => {
  it('reject what the profile does not define', () => {
    expect(() => parseFault({ clientId: A, operation: 'close', fired: 0 })).toThrow(ControlRouteError);
    expect(() => parseFault({ clientId: A, operation: 'getClient' })).toThrow(/not a store fault/);
    expect(() => parseRecordsView({ client: null })).toThrow(/"records"/);
    expect(() => parseRecordsView({ client: 5, records: [] })).toThrow(ControlRouteError);
    expect(() => parseRecordsView({ client: {}, records: [1] })).toThrow(ControlRouteError);
  });
});
