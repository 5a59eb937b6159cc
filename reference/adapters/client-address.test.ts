// The trustProxy option: its value forms, refused at construction with ERR_TRUST_PROXY, and the client address it reads over a real socket.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { createClientAddressReader, parseTrustProxy, trustFunction, validateTrustProxy, type ClientAddressReader } from './client-address.ts';

describe('validateTrustProxy', () => {
  it('takes booleans, hop counts, addresses and CIDR ranges (a list or a comma-separated string), the range names and functions', () => {
    for (const value of [true, false, 0, 1, 3, '10.0.0.1', '10.0.0.0/8, 192.0.2.1', 'loopback, uniquelocal', ['10.0.0.0/8', '::1'], [], (_address: string, hop: number) => hop < 1]) {
      expect(validateTrustProxy(value)).toBe(value);
    }
    expect(validateTrustProxy(undefined)).toBeUndefined();
  });

  it.each([['10.0.0.0/33'], ['example.com'], [''], ['10.0.0.1,,10.0.0.2'], [-1], [1.5], [101], [null], [{}], [[1]], [['10.0.0.1', '']]])('refuses %j with ERR_TRUST_PROXY', (value) => {
    expect(codeOf(() => validateTrustProxy(value))).toBe('ERR_TRUST_PROXY');
    expect(codeOf(() => createClientAddressReader(value as never))).toBe('ERR_TRUST_PROXY');
  });

  it('reads the text of a flag or a variable: true, false, a hop count, else the list as written', () => {
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy(' false ')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8,loopback')).toBe('10.0.0.0/8,loopback');
  });

  it('gives frameworks a function for every value but false, so that a hop count means the same on Fastify (which trusts nothing for a number)', () => {
    expect(trustFunction(undefined)).toBe(false);
    expect(trustFunction(false)).toBe(false);
    const oneHop = trustFunction(1);
    expect(oneHop !== false && [oneHop('10.0.0.1', 0), oneHop('10.0.0.1', 1)]).toEqual([true, false]);
    const ranges = trustFunction('10.0.0.0/8');
    expect(ranges !== false && [ranges('10.1.2.3', 0), ranges('192.0.2.1', 0)]).toEqual([true, false]);
  });
});

describe('createClientAddressReader over a real socket (the client on 127.0.0.1, as a proxy on this machine)', () => {
  let reader: ClientAddressReader = createClientAddressReader();
  const server = createServer((req, res) => void res.end(String(reader(req))));
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const read = async (trustProxy: Parameters<typeof createClientAddressReader>[0], forwardedFor?: string) => {
    reader = createClientAddressReader(trustProxy);
    const response = await fetch(url, { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
    return response.text();
  };

  it('is the socket\'s peer without trusted proxies, whatever X-Forwarded-For says', async () => {
    expect(await read(undefined, '198.51.100.1')).toBe('127.0.0.1');
    expect(await read(false, '198.51.100.1')).toBe('127.0.0.1');
    expect(await read('192.0.2.1', '198.51.100.1')).toBe('127.0.0.1');
  });

  it('is the first untrusted hop from the right with trusted proxies', async () => {
    expect(await read('loopback', '203.0.113.9, 198.51.100.1')).toBe('198.51.100.1');
    expect(await read(1, '203.0.113.9, 198.51.100.1')).toBe('198.51.100.1');
    expect(await read(2, '203.0.113.9, 198.51.100.1')).toBe('203.0.113.9');
    expect(await read(['127.0.0.1', '198.51.100.0/24'], '203.0.113.9, 198.51.100.1')).toBe('203.0.113.9');
    expect(await read(true, '203.0.113.9, 198.51.100.1')).toBe('203.0.113.9');
    expect(await read('loopback')).toBe('127.0.0.1');
  });
});
