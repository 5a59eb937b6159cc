// Public entry of the credit402 client: the fetch wrapper, its storages and its errors.
export { createCredit402Fetch } from './credit402-fetch.ts';
export type { Credit402Fetch, Credit402FetchOptions, PaymentDecision, PaymentRequiredInfo } from './options.ts';
export { MemoryClientIdStorage, type ClientIdStorage } from './storage.ts';
export { FileClientIdStorage } from './file-storage.ts';
export { Credit402PaymentError, Credit402ProtocolError, Credit402SpendingLimitError, Credit402TopUpError } from './errors.ts';
