// Mutant target: charges ⌊units / 100⌋ minor units instead of ⌈units / 100⌉ (breaks CR-7.14, CR-1.3).
import { serveMutant, wrapProcessor } from './serve-mutant.ts';

await serveMutant('round-down', (processor) =>
  wrapProcessor(processor, {
    charge: (request) => processor.charge({ ...request, amountCents: Math.floor(Number(request.metadata.credit402_top_up_units) / 100) }),
  }),
);
