// Public entry of the protocol module: constants, wire types, codec, units and identity.
export * from './constants.ts';
export type * from './types.ts';
export { encodeBase64Json, decodeBase64Json } from './base64-json.ts';
export { parsePaymentHeader, validatePaymentPayload, type PayloadResult } from './payment-payload.ts';
export { unitsToCents } from './units.ts';
export { deriveClientId, isClientIdShape } from './identity.ts';
export { minimumChargeCents, isSupportedCurrency } from './currencies.ts';
