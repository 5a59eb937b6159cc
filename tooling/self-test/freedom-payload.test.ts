// The freedom target reads the payment header as the wire level allows at its most lenient, and no more leniently.
import { describe, expect, it } from 'vitest';
import { readFreedomPayment } from './freedom-payload.ts';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const read = (...lines: string[]) => readFreedomPayment(lines);

describe('readFreedomPayment', () => {
  it('takes no header and an empty one alike (L-1), and the first of several lines (L-5)', () => {
    expect(read()).toEqual({ kind: 'absent' });
    expect(read('  ')).toEqual({ kind: 'absent' });
    expect(read(b64('{"clientId":"a"}'), b64('{"clientId":"b"}'))).toEqual({ kind: 'payload', payload: { clientId: 'a' } });
  });

  it('ignores every = wherever it stands (L-2) and reads only the standard alphabet (L-3)', () => {
    expect(read('e30==')).toEqual({ kind: 'neither' });
    expect(read('e3=0=')).toEqual({ kind: 'neither' });
    // Appendix A.3's payload with the unknown member `note`, standard, then URL-safe and unpadded.
    const payload = { kind: 'payload', payload: { paymentMethodId: 'pm_card_visa', topUpAmount: 50000 } };
    expect(read('eyJwYXltZW50TWV0aG9kSWQiOiJwbV9jYXJkX3Zpc2EiLCJ0b3BVcEFtb3VudCI6NTAwMDAsIm5vdGUiOiJ3aHk/In0=')).toEqual(payload);
    expect(read('eyJwYXltZW50TWV0aG9kSWQiOiJwbV9jYXJkX3Zpc2EiLCJ0b3BVcEFtb3VudCI6NTAwMDAsIm5vdGUiOiJ3aHk_In0')).toEqual({ kind: 'malformed' });
  });

  it('still refuses what no base64 variant reads and text that is not JSON (CR-3.5)', () => {
    for (const value of ['e30=,e30=', 'e3 0', 'e', 'e30*', 'YWJj']) expect(read(value), value).toEqual({ kind: 'malformed' });
  });

  it('replaces bytes that are not UTF-8 (L-4)', () => {
    const bytes = Buffer.concat([Buffer.from('{"clientId":"a'), Buffer.from([0xff]), Buffer.from('"}')]).toString('base64');
    expect(read(bytes)).toEqual({ kind: 'payload', payload: { clientId: 'a\uFFFD' } });
  });

  it('finds a value that is not an object, or a mistyped member, unusable (L-7, L-8), and ignores stripe402Version and requestId (L-10, L-11)', () => {
    for (const json of ['null', '[]', '42', '"pm_x"', 'true', '{"clientId":42}', '{"paymentMethodId":""}', '{"paymentMethodId":"pm_x","topUpAmount":"5"}', '{"paymentMethodId":"pm_x","topUpAmount":0.5}']) {
      expect(read(b64(json)).kind, json).toBe('unusable');
    }
    expect(read(b64('{"stripe402Version":2,"requestId":"!","clientId":"c"}'))).toEqual({ kind: 'payload', payload: { clientId: 'c' } });
  });

  it('keeps a top-up of 0 or below for the new-payment path (L-9) and finds a payload without clientId and paymentMethodId (L-12)', () => {
    expect(read(b64('{"paymentMethodId":"pm_x","topUpAmount":-1}'))).toEqual({ kind: 'payload', payload: { paymentMethodId: 'pm_x', topUpAmount: -1 } });
    expect(read(b64('{"topUpAmount":50000}'))).toEqual({ kind: 'neither' });
  });
});
