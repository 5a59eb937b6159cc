// Mutant target: charges with a fresh random idempotency key each time and does not serialise a card's payments: it double-charges (breaks CR-7.16, CR-14.7, CR-14.8).
import { randomUUID } from 'node:crypto';
import { wrapProcessor } from './serve-mutant.ts';
import { serveWith } from './serve-with.ts';

await serveWith('fresh-charge-key', {
  paymentLock: false,
  mutate: (processor) => wrapProcessor(processor, { charge: (request) => processor.charge({ ...request, idempotencyKey: `credit402-topup-${randomUUID()}` }) }),
});
