// The kit's handler-run check over real sockets: silent on the reference server (both frameworks), a finding per 402 on the handler-after-402 mutant.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SOURCE_NODE_OPTIONS } from '../testing/kit.ts';
import { useReferenceStack } from '../testing/reference-stack.ts';
import { startHandlerAfter402 } from './handler-after-402.ts';
import { useTargetOnEmulator } from './target-on-emulator.ts';

/** A request as the kit sends it. */
interface KitRequest {
  method: string;
  target: string;
  headers?: Record<string, string>;
}

/** What the kit saw: each answer's status (0: none) and the verdict of `checkHandlerRuns`. */
interface KitCheck {
  statuses: number[];
  verdict: { checked: false; reason: string } | { checked: true; findings: string[] };
}

const paid = Buffer.from(JSON.stringify({ paymentMethodId: 'pm_card_visa' })).toString('base64');

/** Requests of every outcome: challenges (GET and HEAD), a payment error, a paid and two free requests, an unknown path. */
const REQUESTS: KitRequest[] = [
  { method: 'GET', target: '/api/weather' },
  { method: 'HEAD', target: '/api/weather' },
  { method: 'GET', target: '/api/weather', headers: { payment: '!!' } },
  { method: 'GET', target: '/api/weather?city=Oslo', headers: { payment: paid } },
  { method: 'GET', target: '/free' },
  { method: 'POST', target: '/api/weather' },
  { method: 'GET', target: '/api/weather/' },
];
const STATUSES = [402, 402, 402, 200, 200, 200, 404];

/**
 * Sends `requests` with the kit's own HTTP client, then runs the kit's `checkHandlerRuns` on the exchanges. The kit
 * runs in a child process, as everywhere in the reference's tests: the reference never imports it.
 */
function kitCheck(targetUrl: string, requests: readonly KitRequest[]): Promise<KitCheck> {
  const module = (file: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, file)).href);
  const script = [
    `const { TargetClient } = await import(${module('harness/world/http-client.ts')});`,
    `const { checkHandlerRuns } = await import(${module('harness/world/handler-runs.ts')});`,
    'const { targetUrl, requests } = JSON.parse(process.env.KIT_CHECK_INPUT);',
    'const client = new TargetClient(targetUrl, 10000);',
    'for (const request of requests) await client.send(request);',
    'const verdict = await checkHandlerRuns(targetUrl, client.exchanges);',
    'console.log(JSON.stringify({ statuses: client.exchanges.map((exchange) => exchange.answer?.status ?? 0), verdict }));',
  ].join('\n');
  const child = spawn(process.execPath, [...SOURCE_NODE_OPTIONS, '--input-type=module', '--eval', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, KIT_CHECK_INPUT: JSON.stringify({ targetUrl, requests }) },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout) as KitCheck) : reject(new Error(`the kit's check exited ${code}: ${stderr}`))));
  });
}

describe.each(['fastify', 'express', 'hono'] as const)('the reference server on %s', (framework) => {
  const stack = useReferenceStack({ framework, conformanceControl: true });

  it('CR-4.6: counts a run for each served request and none for the others, so the kit finds nothing', async () => {
    const { statuses, verdict } = await kitCheck(stack.server.url, REQUESTS);
    expect(statuses).toEqual(STATUSES);
    expect(verdict).toEqual({ checked: true, findings: [] });
  });
});

describe('the handler-after-402 mutant', () => {
  const running = useTargetOnEmulator(startHandlerAfter402);

  it('CR-4.6: answers like the reference, but the kit finds the handler run after each 402 (challenges and the payment error)', async () => {
    const { statuses, verdict } = await kitCheck(running.target.url, REQUESTS);
    expect(statuses).toEqual(STATUSES);
    expect(verdict).toEqual({
      checked: true,
      findings: [
        'GET /api/weather → 402: the handler ran 1 time although the request was not served: it runs only for a served request',
        'HEAD /api/weather → 402: the handler ran 1 time although the request was not served: it runs only for a served request',
        'GET /api/weather → 402: the handler ran 1 time although the request was not served: it runs only for a served request',
      ],
    });
  });
});
