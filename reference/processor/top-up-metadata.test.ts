// Unit tests of the top-up metadata: the store id written with the client and units, and read back (CR-7.17, CR-14.13).
import { describe, expect, it } from 'vitest';
import { readTopUp, topUpMetadata } from './top-up-metadata.ts';

const CLIENT = 'c'.repeat(64);
const read = (metadata: Record<string, string>) => readTopUp({ metadata, amountReceivedCents: 500, currency: 'usd' });

describe('top-up metadata', () => {
  it('CR-14.13 carries the store id the charge was made under, and reads it back', () => {
    const metadata = topUpMetadata(CLIENT, 50_000, 'store-1');
    expect(metadata).toEqual({ credit402_client_id: CLIENT, credit402_top_up_units: '50000', credit402_store_id: 'store-1' });
    expect(read(metadata)).toEqual({ clientId: CLIENT, units: 50_000, currency: 'usd', storeId: 'store-1' });
  });

  it('CR-14.13 reads a PaymentIntent made before the store id was written as before, without one', () => {
    expect(read(topUpMetadata(CLIENT, 50_000))).toEqual({ clientId: CLIENT, units: 50_000, currency: 'usd' });
  });

  it.each(['', 'a'.repeat(65), 'store id', 'store_1'])('CR-14.13 refuses a credit402_store_id that is no store id: %j', (storeId) => {
    expect(read({ ...topUpMetadata(CLIENT, 50_000), credit402_store_id: storeId })).toBe('metadata credit402_store_id is not a store id');
  });
});
