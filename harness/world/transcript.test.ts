// Unit tests of the failure transcript: request and answer headers, decoded payment headers as pretty JSON, set-up lines.
import { describe, expect, it } from 'vitest';
import { decodeStrict } from './base64-json.ts';
import type { Answer, Exchange } from './exchange.ts';
import { formatExchange, formatTranscript, lenientPaymentJson } from './transcript.ts';

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

function exchange(payment: string | undefined, answer?: Partial<Answer>, setup = false): Exchange {
  return {
    request: { method: 'GET', target: '/api/weather', ...(payment === undefined ? {} : { headers: { payment } }) },
    path: '/api/weather',
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 4,
    ...(answer ? { answer: { status: 402, rawHeaders: [], headers: {}, text: '', json: undefined, ...answer } } : { error: 'socket hang up' }),
    ...(setup ? { setup } : {}),
  };
}

describe('formatExchange', () => {
  it('prints a payment header that decodes as base64 JSON also as pretty JSON under it (url-safe, unpadded too)', () => {
    const raw = b64({ paymentMethodId: 'pm_1', topUpAmount: 50001 }).replace(/=+$/, '').replace(/\+/g, '-');
    expect(formatExchange(exchange(raw, { status: 200 }), 0)).toBe(
      [
        '[1] 2025-01-01T00:00:00.000Z GET /api/weather (4 ms)',
        `  > payment: "${raw}"`,
        '    decoded payment (lenient, for reading only):',
        '      {',
        '        "paymentMethodId": "pm_1",',
        '        "topUpAmount": 50001',
        '      }',
        '  < 200',
      ].join('\n'),
    );
  });

  it('prints a payment header that is not JSON as its decoded text, once', () => {
    const text = formatExchange(exchange(Buffer.from('{"a":').toString('base64')), 2);
    expect(text).toContain('  > payment: "eyJhIjo="\n    decoded payment (lenient, for reading only): "{\\"a\\":"\n  ! no answer: socket hang up');
    expect(text.match(/decoded payment/g)).toHaveLength(1);
    expect(lenientPaymentJson('M~zz')).toBeUndefined();
    expect(lenientPaymentJson('MTIz')).toEqual({ value: 123 });
  });

  it('prints payment-required and payment-response decoded under their own header line, once', () => {
    const required = b64({ accepts: [{ amount: 100 }] });
    const answer: Partial<Answer> = {
      rawHeaders: [['Payment-Required', required], ['content-type', 'application/json'], ['payment-response', 'bad!']],
      headers: { 'payment-required': required, 'content-type': 'application/json', 'payment-response': 'bad!' },
      text: '{}',
      paymentRequired: decodeStrict(required),
      paymentResponse: decodeStrict('bad!'),
    };
    const text = formatExchange(exchange(undefined, answer), 0);
    expect(text).toBe(
      [
        '[1] 2025-01-01T00:00:00.000Z GET /api/weather (4 ms)',
        '  < 402',
        `  < Payment-Required: ${required}`,
        '    decoded payment-required:',
        '      {',
        '        "accepts": [',
        '          {',
        '            "amount": 100',
        '          }',
        '        ]',
        '      }',
        '  < content-type: application/json',
        '  < payment-response: bad!',
        '    decoded payment-response: NOT DECODABLE (not the standard base64 alphabet with = padding (CR-3.2))',
        '  body:',
        '    {}',
      ].join('\n'),
    );
  });

  it('keeps set-up exchanges on one line', () => {
    const required = b64({ success: true });
    const text = formatExchange(exchange(b64({ clientId: 'c' }), { status: 200, paymentResponse: decodeStrict(required) }, true), 1);
    expect(text).toBe('[2] (set-up) GET /api/weather payment {"clientId":"c"} → 200 {"success":true}');
  });
});

describe('formatTranscript', () => {
  it('lists the requirements, notes, exchanges and journal', () => {
    const text = formatTranscript({ scenario: 'S', requirementIds: ['CR-3.4'], notes: ['fuzz: seed 402'], exchanges: [exchange(undefined, { status: 402 })], journal: [] });
    expect(text).toBe(
      ['Scenario: S', 'Requirements: CR-3.4', 'Note: fuzz: seed 402', '', 'HTTP exchanges with the target (1):', '[1] 2025-01-01T00:00:00.000Z GET /api/weather (4 ms)', '  < 402', '', 'Processor journal of this scenario (0 entries):', '  (none)'].join(
        '\n',
      ),
    );
  });
});
