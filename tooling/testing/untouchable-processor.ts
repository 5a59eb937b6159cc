// Test double: a processor that fails the test if the gate calls it (paths that must make no processor call).
import type { Processor } from 'credit402';

/** A processor whose every method throws `the processor must not be called <when>`, after telling `onCall` its name. */
export function untouchableProcessor(when = '', onCall: (method: keyof Processor) => void = () => {}): Processor {
  const refuse = (method: keyof Processor) => (): never => {
    onCall(method);
    throw new Error(`the processor must not be called${when ? ` ${when}` : ''}`);
  };
  return { getCardFingerprint: refuse('getCardFingerprint'), findOrCreateCustomer: refuse('findOrCreateCustomer'), charge: refuse('charge') };
}
