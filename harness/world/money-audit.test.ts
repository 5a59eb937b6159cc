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

  it('says "charged but not credited" only when every request was answered: a finding of CR-7.13 (no answer carried it) and one of CR-7.9 (not credited)', () => {
    const { findings } = auditCharges([intent(1, 'pi_1')], [answered()]);
    expect(findings.map((finding) => finding.id)).toEqual(['CR-7.13', 'CR-7.9']);
    expect(findings[0]?.message).toMatch(/^charged but not credited: PaymentIntent pi_1 succeeded/);
    expect(findings[1]?.message).toMatch(/^charged but not credited: the top-up of PaymentIntent pi_1 was credited to no answered request/);
  });

  it('says "two charges for one paid request" (CR-7.16) when a client gave up and its retry was charged again', () => {
    const { findings } = auditCharges([intent(1, 'pi_1'), intent(2, 'pi_2')], [unanswered, answered('pi_2')]);
    expect(findings.map((finding) => finding.id)).toEqual(['CR-7.16']);
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

  it("leaves out the PaymentIntents the kit made itself: a top-up behind the target that a target without webhooks never credits is the scenario's to judge, not a wire failure", () => {
    expect(auditCharges([intent(1, 'pi_kit')], [answered()], new Set(), new Set(['pi_kit'])).findings).toEqual([]);
    expect(auditCharges([intent(1, 'pi_kit'), intent(2, 'pi_1')], [answered()], new Set(), new Set(['pi_kit'])).findings.map((finding) => finding.message)).toEqual([
      expect.stringMatching(/PaymentIntent pi_1 succeeded/),
      expect.stringMatching(/PaymentIntent pi_1 was credited/),
    ]);
  });
});
