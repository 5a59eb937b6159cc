// Mutant target: the refund rule turned around: a served request whose handler failed (5xx, or threw) gets its price
// back, although the target runs with refundOnHandlerError off as conformance runs do (breaks CR-13.27).
import { serveMutant } from './serve-mutant.ts';

// The reference gate gives the price back on a failed handler only with the option; this mutant behaves as if the
// option were on, whatever the operator configured: the deduction made before the handler does not stand.
await serveMutant('refund-inverted', (processor) => processor, (gate) => gate, { refundOnHandlerError: true });
