// Public entry of the gate engine.
export { createGate, type Gate } from './gate.ts';
export type { GateOptions } from './options.ts';
export { createErrorLog, type ErrorLogOptions } from './error-log.ts';
export type { GateDecision, GateRequest, PassDecision, RespondDecision, ServeDecision, ServeOutcome } from './decision.ts';
export type { GatedRoute } from './context.ts';
export { Credit402ConfigError, type ConfigErrorCode } from '../config/config-error.ts';
export type {
  GateEvent, GateEventType, GateHooks, ChallengeEvent, ChargeEvent, CreditEvent, DeductionEvent, RefundEvent, PaymentErrorEvent, StoreUnavailableEvent, StoreCallEvent,
} from './events.ts';
