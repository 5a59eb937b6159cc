// Helpers shared by the store conformance cases: fresh ids and failure assertions.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';

/** A fresh client id, so tests never share state even when they share a store. */
export const newClientId = (): string => `client-${randomUUID()}`;

/** A fresh PaymentIntent id. */
export const newPaymentIntentId = (): string => `pi_${randomUUID().replaceAll('-', '')}`;

/** Resolves when `run` throws or rejects with an instance of `type`. */
export async function expectFailure(run: () => unknown, type: new (...args: never[]) => Error): Promise<void> {
  await expect((async () => run())()).rejects.toBeInstanceOf(type);
}
