// The money auditor's findings: charged and not credited, two charges for one paid request, and what it cannot tell.
import type { JournalEntry } from 'credit402-stripe-emulator';
import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.ts';
import { auditCharges } from './money-audit.ts';

const intent = (seq: number, id: string, customer = 'cus_1'): JournalEntry =>
  ({ seq, method: 'POST', path: '/v1/payment_intents', params: {}, status: 200, response: { object: 'payment_intent', id, status: 'succeeded', customer } }) as unknown as JournalEntry;

const answered = (chargeId?: string): Exchange => ({
  request: { method: 'GET', target: '/api/weather' },
  path: '/api/weather',
  startedAt: '',
  durationMs: 1,
  answer: {
    status: chargeId ? 200 : 402,
    rawHeaders: [],
    headers: {},
    text: '',
    json: undefined,
    ...(chargeId ? { paymentResponse: { ok: true, value: { success: true, chargeId, creditsRemaining: 1, clientId: 'c' } } } : {}),
  },
});
const unanswered: Exchange = { request: { method: 'GET', target: '/api/weather' }, path: '/api/weather', startedAt: '', durationMs: 15_000, error: 'no answer within 15000 ms' };

describe('auditCharges', () => {
  it('finds nothing when every succeeded PaymentIntent reached the client as chargeId', () => {
    expect(auditCharges([intent(1, 'pi_1')], [answered('pi_1')])).toEqual({ findings: [], unknown: [] });
  });

  it('says "charged but not credited" (CR-7.9, CR-7.13) only when every request was answered', () => {
    const { findings } = auditCharges([intent(1, 'pi_1')], [answered()]);
    expect(findings).toHaveLength(1);
    expect(findings[0]?.ids).toEqual(['CR-7.9', 'CR-7.13']);
    expect(findings[0]?.message).toMatch(/^charged but not credited: PaymentIntent pi_1 succeeded/);
  });

  it('says "two charges for one paid request" (CR-7.16) when a client gave up and its retry was charged again', () => {
    const { findings } = auditCharges([intent(1, 'pi_1'), intent(2, 'pi_2')], [unanswered, answered('pi_2')]);
    expect(findings.map((finding) => finding.ids)).toEqual([['CR-7.16']]);
    expect(findings[0]?.message).toMatch(/^two charges for one paid request: PaymentIntent pi_1 and pi_2/);
  });

  it('fails nothing it cannot know: a charge whose request got no answer is reported as unknown', () => {
    const { findings, unknown } = auditCharges([intent(1, 'pi_1')], [unanswered]);
    expect(findings).toEqual([]);
    expect(unknown[0]).toMatch(/cannot tell whether it was credited/);
  });

  it('accepts a charge a webhook credited', () => {
    expect(auditCharges([intent(1, 'pi_1')], [answered()], new Set(['pi_1'])).findings).toEqual([]);
  });
});
