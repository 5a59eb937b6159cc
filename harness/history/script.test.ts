// The printed counterexample and its replay script: what a failed history run shows and writes.
import { describe, expect, it } from 'vitest';
import type { HistoryResult } from './execute.ts';
import type { Operation } from './operations.ts';
import { formatCounterexample, parseReplayScript } from './script.ts';

const operations: Operation[] = [
  { op: 'call', call: { card: 1, route: 'GET /api/weather', rid: 1, pay: { method: 0 } } },
  { op: 'call', call: { card: 0, route: 'GET /api/weather', rid: 1 } },
];

const result: HistoryResult = {
  operations,
  exchanges: [
    { op: 1, method: 'GET', target: '/api/weather', payment: { clientId: 'c0', requestId: 'hr1' }, requestId: 'x', atMs: 9, durationMs: 2, status: 200, paymentResponse: { success: true, creditsRemaining: 0, clientId: 'c0' }, handled: 1 },
  ],
  journal: [],
  violation: { ids: ['CR-6.9'], message: 'served free', at: 'op 1', failedOp: 1 },
  notes: [],
  durationMs: 15,
};

describe('the counterexample of a failed history run', () => {
  it('names the requirement, numbers the operations, gives the replay and the transcript', () => {
    const text = formatCounterexample({ seed: 7, path: '2:1', operations }, result, 'history --seed 7 --path 2:1');
    expect(text.split('\n').slice(0, 7)).toEqual([
      '✗ history failed: CR-6.9',
      '  served free',
      '  at op 1',
      '',
      'shrunk history (2 operations; seed 7, path 2:1):',
      '  0. card 1 pays on GET /api/weather rid 1',
      '  1. card 0 spends on GET /api/weather rid 1',
    ]);
    expect(text).toContain('replay: history --seed 7 --path 2:1');
    expect(text).toContain('  op 1 +9ms GET /api/weather payment {"clientId":"c0","requestId":"hr1"}\n    → 200, payment-response {"success":true,"creditsRemaining":0,"clientId":"c0"}, handler ran 1×, 2 ms');
  });

  it('writes a script that reads back as the same history, and refuses anything else', () => {
    expect(parseReplayScript(JSON.stringify({ seed: 7, path: '2:1', operations }))).toEqual({ seed: 7, path: '2:1', operations });
    expect(() => parseReplayScript('{"operations": [{"op": "teleport"}]}')).toThrow(/not an operation/);
    expect(() => parseReplayScript('[]')).toThrow(/replay script/);
  });
});
