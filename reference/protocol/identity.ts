// Client identity: HMAC-SHA256 of the card fingerprint keyed with the server secret.
import { createHmac } from 'node:crypto';

const CLIENT_ID_PATTERN = /^[0-9a-f]{64}$/;

/** Derives the client identifier (lowercase hex) from a card fingerprint. */
export function deriveClientId(fingerprint: string, serverSecret: string): string {
  return createHmac('sha256', serverSecret).update(fingerprint, 'utf8').digest('hex');
}

/** True when the value has the shape of a client identifier (64 lowercase hex characters). */
export function isClientIdShape(value: string): boolean {
  return CLIENT_ID_PATTERN.test(value);
}
