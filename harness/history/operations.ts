// The operations of a generated history, how fast-check draws them from the profile and the declared capabilities, and how they read.
import fc from 'fast-check';

/** A gated route a history uses: the profile's RouteConfig with its defaults applied. */
export interface HistoryRoute {
  key: string;
  method: string;
  path: string;
  price: number;
  currency: string;
  minTopUp: number;
  /** How its handler fails (the profile's `failingHandlers`), when it does. */
  failing?: 'answer500' | 'throw';
}

/** One paid call: spend from the balance of card `card` (by clientId), or pay with it (`pay`: first payment, or a known card). */
export interface Call {
  card: number;
  route: string;
  /** A small number naming the request id (`requestId`), so that histories reuse ids: retries, other clients, other routes. */
  rid?: number;
  /** Pay with the card's payment method (the second one with `method` 1), topping up `topUp` units (absent: the route's minTopUp). */
  pay?: { method: 0 | 1; topUp?: number };
}

/** How a store fault armed for one client fails its next deduction (PROFILE.md, Capabilities, `storeFaults`). */
export type FaultMode = 'reject' | 'replyLost' | 'delay';

/** One step of a history. */
export type Operation =
  | { op: 'call'; call: Call }
  | { op: 'burst'; calls: Call[] }
  | { op: 'malformed'; card: number; rid?: number }
  | { op: 'fault'; card: number; mode: FaultMode };

/** What the generator draws from. */
export interface HistoryShape {
  routes: readonly HistoryRoute[];
  /** Whether the target declares `storeFaults`. */
  storeFaults: boolean;
  /** Whether a paid `POST` route exists (malformed bodies are sent to it). */
  paidPost: boolean;
  maxOps: number;
}

/** How many cards a history uses. */
export const CARDS = 3;
/** How many request ids a history draws from: few, so that ids are retried, reused by other clients and on other routes. */
const RIDS = 3;

/** A card, the first ones more often, so that one client's calls meet (and shrink towards card 0). */
const cardArbitrary: fc.Arbitrary<number> = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) });

function callArbitrary(shape: HistoryShape, allowPay: boolean): fc.Arbitrary<Call> {
  const minTopUp = (key: string): number => shape.routes.find((candidate) => candidate.key === key)?.minTopUp ?? 50_000;
  const topUps = { min: (min: number) => min, odd: (min: number) => min + 1, double: (min: number) => min * 2 } as const;
  return fc
    .record({
      card: cardArbitrary,
      route: fc.constantFrom(...shape.routes.map((candidate) => candidate.key)),
      rid: fc.option(fc.nat(RIDS - 1), { nil: undefined }),
      pay: allowPay
        ? fc.option(fc.record({ method: fc.constantFrom<0 | 1>(0, 1), topUp: fc.constantFrom<keyof typeof topUps | undefined>(undefined, 'min', 'odd', 'double') }), { nil: undefined, freq: 2 })
        : fc.constant(undefined),
    })
    .map(({ pay, ...call }): Call => {
      if (pay === undefined) return withoutUndefined(call);
      const topUp = pay.topUp === undefined ? undefined : topUps[pay.topUp](minTopUp(call.route));
      return withoutUndefined({ ...call, pay: withoutUndefined({ method: pay.method, topUp }) });
    });
}

/** The object without its undefined members, so that printed and stored histories stay short. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

/** The arbitrary of one operation. Bursts carry spends only: a first payment is not one atomic step (CR-14.7 is robust). */
function operationArbitrary(shape: HistoryShape): fc.Arbitrary<Operation> {
  const choices: Array<{ weight: number; arbitrary: fc.Arbitrary<Operation> }> = [
    { weight: 10, arbitrary: callArbitrary(shape, true).map((call) => ({ op: 'call', call }) as const) },
    { weight: 2, arbitrary: fc.array(callArbitrary(shape, false), { minLength: 2, maxLength: 5 }).map((calls) => ({ op: 'burst', calls }) as const) },
    // One client's spends at once: what a deduction that is not atomic gets wrong (CR-6.7).
    {
      weight: 2,
      arbitrary: fc
        .tuple(cardArbitrary, fc.array(callArbitrary(shape, false), { minLength: 2, maxLength: 4 }))
        .map(([card, calls]) => ({ op: 'burst', calls: calls.map((call) => ({ ...call, card })) }) as const),
    },
  ];
  if (shape.paidPost) {
    choices.push({
      weight: 1,
      arbitrary: fc.record({ card: cardArbitrary, rid: fc.option(fc.nat(RIDS - 1), { nil: undefined }) }).map((drawn) => withoutUndefined({ op: 'malformed', ...drawn }) as Operation),
    });
  }
  if (shape.storeFaults) {
    choices.push({
      weight: 2,
      arbitrary: fc.record({ card: cardArbitrary, mode: fc.constantFrom<FaultMode>('reject', 'replyLost', 'delay') }).map((drawn) => ({ op: 'fault', ...drawn }) as const),
    });
  }
  return fc.oneof(...choices);
}

/** The arbitrary of a whole history: 1 to `maxOps` operations. */
export function historyArbitrary(shape: HistoryShape): fc.Arbitrary<Operation[]> {
  return fc.array(operationArbitrary(shape), { minLength: 1, maxLength: shape.maxOps });
}

/** One call in words: `card 1 pays GET /api/weather (topUp 50001, second payment method) rid 2`. */
export function describeCall(call: Call): string {
  const rid = call.rid === undefined ? '' : ` rid ${call.rid}`;
  if (call.pay === undefined) return `card ${call.card} spends on ${call.route}${rid}`;
  const details = [call.pay.topUp === undefined ? undefined : `topUp ${call.pay.topUp}`, call.pay.method === 1 ? 'second payment method' : undefined].filter(Boolean);
  return `card ${call.card} pays on ${call.route}${details.length ? ` (${details.join(', ')})` : ''}${rid}`;
}

/** One operation in words. */
export function describeOperation(operation: Operation): string {
  switch (operation.op) {
    case 'call':
      return describeCall(operation.call);
    case 'burst':
      return `at once: ${operation.calls.map(describeCall).join('; ')}`;
    case 'malformed':
      return `card ${operation.card} spends on the paid POST with a body that does not parse${operation.rid === undefined ? '' : ` rid ${operation.rid}`}`;
    case 'fault':
      return `the store fails card ${operation.card}'s next deduction (${operation.mode === 'delay' ? 'held, then rejected' : operation.mode === 'replyLost' ? 'applied, reply lost' : 'rejected'})`;
  }
}
