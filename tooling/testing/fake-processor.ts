// Test helper: a Processor held in memory, with programmable cards, customers and charge answers and a journal of every call.
import { PaymentError, type ChargeRequest, type ChargeResult, type Processor } from 'credit402';

/** The processor methods the gate calls. */
export type ProcessorMethod = 'getCardFingerprint' | 'findOrCreateCustomer' | 'charge';

/** One call the fake received, with its arguments. */
type ProcessorCall =
  | { method: 'getCardFingerprint'; args: [paymentMethodId: string] }
  | { method: 'findOrCreateCustomer'; args: [clientId: string, paymentMethodId: string] }
  | { method: 'charge'; args: [request: ChargeRequest] };

/**
 * How a call fails, as the Stripe processor reports it: a card error (`StripeCardError`, mapped to `card_declined`
 * with Stripe's message), another error answer (mapped to `payment_failed` with Stripe's message, e.g. an invalid
 * API key), or no answer at all (a timeout or dropped connection: `payment_failed` with the SDK's own text).
 */
type ProcessorFailure =
  | { kind: 'card_error'; message: string }
  | { kind: 'error'; message: string }
  | { kind: 'no_answer' };

/**
 * What a charge does: succeed (the default), end in another PaymentIntent status (`requires_action`…), or fail.
 * `no_answer` with `charged: true` takes the money and then loses the answer, as a timeout after Stripe acted does.
 */
type ChargeAnswer =
  | { kind: 'succeeded' }
  | { kind: 'status'; status: string }
  | ProcessorFailure
  | { kind: 'no_answer'; charged: true };

/** The fake's programmed behaviour. */
export interface FakeProcessorSetup {
  /** Card fingerprint per PaymentMethod id; `null` for a PaymentMethod that is not a card. Others do not exist. */
  cards?: Record<string, string | null>;
  /** Customers that already exist, by the clientId in their metadata. */
  customers?: Record<string, string>;
  /** Answers of the next charges, in order; once used up, charges succeed. */
  charges?: ChargeAnswer[];
  /** Every call of these methods fails so (a charge failure here wins over `charges`). */
  failures?: Partial<Record<ProcessorMethod, ProcessorFailure>>;
  /** Called with the name of each method, as `processor.<method>`, when it is called (to trace the order of steps). */
  onCall?: (step: string) => void;
}

/** The SDK's message for a request that got no answer; the gate must not forward it (CR-13.35). */
const NO_ANSWER_MESSAGE = 'An error occurred with our connection to Stripe.';

/** The error the Stripe processor raises for a failure. */
function failureError(failure: ProcessorFailure): PaymentError {
  if (failure.kind === 'card_error') return new PaymentError('card_declined', failure.message);
  if (failure.kind === 'error') return new PaymentError('payment_failed', failure.message);
  return new PaymentError('payment_failed', NO_ANSWER_MESSAGE, { cause: { type: 'StripeConnectionError' } });
}

/** A charge's parameters without its idempotency key, to compare two uses of one key as Stripe does. */
function parametersOf(request: ChargeRequest): string {
  const { idempotencyKey: _key, ...parameters } = request;
  return JSON.stringify(parameters, Object.keys(parameters).sort());
}

/**
 * A {@link Processor} in memory. PaymentIntents are `pi_fake_1`, `pi_fake_2`…, customers `cus_fake_1`…. As Stripe
 * does, a charge whose idempotency key was already used replays the first answer (a PaymentIntent, or the error
 * answer) when its parameters are the same and is refused when they differ; a call that got no answer is not
 * replayed unless it charged.
 */
export class FakeProcessor implements Processor {
  readonly calls: ProcessorCall[] = [];
  /** Customers created by `findOrCreateCustomer`, in order. */
  readonly createdCustomers: Array<{ id: string; clientId: string; paymentMethodId: string }> = [];
  readonly #cards: Map<string, string | null>;
  readonly #customers: Map<string, string>;
  readonly #answers: ChargeAnswer[];
  readonly #failures: Partial<Record<ProcessorMethod, ProcessorFailure>>;
  readonly #onCall: (step: string) => void;
  /** Idempotency key → the parameters first sent and the answer to replay. */
  readonly #replays = new Map<string, { parameters: string; answer: () => ChargeResult }>();
  #intents = 0;

  constructor(setup: FakeProcessorSetup = {}) {
    this.#cards = new Map(Object.entries(setup.cards ?? {}));
    this.#customers = new Map(Object.entries(setup.customers ?? {}));
    this.#answers = [...(setup.charges ?? [])];
    this.#failures = { ...setup.failures };
    this.#onCall = setup.onCall ?? (() => {});
  }

  /** The methods called, in order. */
  get methods(): ProcessorMethod[] {
    return this.calls.map((call) => call.method);
  }

  /** The charge requests received, in order. */
  get charges(): ChargeRequest[] {
    return this.calls.flatMap((call) => (call.method === 'charge' ? [call.args[0]] : []));
  }

  #record(call: ProcessorCall): void {
    this.calls.push(call);
    this.#onCall(`processor.${call.method}`);
    const failure = this.#failures[call.method];
    if (failure) throw failureError(failure);
  }

  async getCardFingerprint(paymentMethodId: string): Promise<string> {
    this.#record({ method: 'getCardFingerprint', args: [paymentMethodId] });
    const fingerprint = this.#cards.get(paymentMethodId);
    if (fingerprint === undefined) throw new PaymentError('payment_failed', `No such PaymentMethod: '${paymentMethodId}'`);
    if (fingerprint === null) throw new PaymentError('payment_failed', `Payment method ${paymentMethodId} is not a card with a fingerprint`);
    return fingerprint;
  }

  async findOrCreateCustomer(clientId: string, paymentMethodId: string): Promise<string> {
    this.#record({ method: 'findOrCreateCustomer', args: [clientId, paymentMethodId] });
    const found = this.#customers.get(clientId);
    if (found !== undefined) return found;
    const id = `cus_fake_${this.createdCustomers.length + 1}`;
    this.createdCustomers.push({ id, clientId, paymentMethodId });
    this.#customers.set(clientId, id);
    return id;
  }

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    this.#record({ method: 'charge', args: [structuredClone(request)] });
    const parameters = parametersOf(request);
    const replay = this.#replays.get(request.idempotencyKey);
    if (replay !== undefined) {
      if (replay.parameters !== parameters) {
        throw new PaymentError('payment_failed', 'Keys for idempotent requests can only be used with the same parameters they were first used with.');
      }
      return replay.answer();
    }
    const answer = this.#answers.shift() ?? { kind: 'succeeded' };
    const keep = (result: () => ChargeResult): ChargeResult => {
      this.#replays.set(request.idempotencyKey, { parameters, answer: result });
      return result();
    };
    switch (answer.kind) {
      case 'succeeded': {
        const id = this.#newIntent();
        return keep(() => ({ id, succeeded: true }));
      }
      case 'status': {
        const id = this.#newIntent();
        return keep(() => ({ id, succeeded: false, reason: answer.status }));
      }
      case 'no_answer':
        if ('charged' in answer) {
          const id = this.#newIntent();
          this.#replays.set(request.idempotencyKey, { parameters, answer: () => ({ id, succeeded: true }) });
        }
        throw failureError({ kind: 'no_answer' });
      default:
        return keep(() => {
          throw failureError(answer);
        });
    }
  }

  #newIntent(): string {
    this.#intents += 1;
    return `pi_fake_${this.#intents}`;
  }
}
