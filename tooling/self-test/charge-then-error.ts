// Mutant target: charges the card, then answers as if the charge had failed (money taken, nothing credited: breaks CR-7.9, CR-7.13).
import { serveMutant, wrapProcessor } from './serve-mutant.ts';

await serveMutant('charge-then-error', (processor) =>
  wrapProcessor(processor, {
    charge: async (request) => {
      await processor.charge(request);
      throw new Error('the mutant forgets the charge it just made');
    },
  }),
);
