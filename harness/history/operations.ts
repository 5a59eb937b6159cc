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

/** How a store fault armed for one client fails its next deduction or refund (PROFILE.md, Capabilities, `storeFaults`). */
export type FaultMode = 'reject' | 'replyLost' | 'delay';

/**
 * How the kit's upstream fails a gateway's forwarded request (the `gateway` capability, CR-15.3): it refuses the
 * connection (it stops listening while the request is sent), resets it, closes it without an answer, answers bytes
 * that are not HTTP (the gateway answers 502 for each), stalls past the gateway's timeout (504), or cuts its answer
 * after the status line (the connection ends: the handler ran, and its price is kept).
 */
export type UpstreamFaultMode = 'refuse' | 'reset' | 'close' | 'invalid' | 'stall' | 'cut';

/** One step of a history. */
export type Operation =
  | { op: 'call'; call: Call }
  | { op: 'burst'; calls: Call[] }
  /** `count` spends of one card on one route at once: more than a top-up of that route pays for (CR-6.7). */
  | { op: 'flood'; card: number; route: string; count: number }
  | { op: 'malformed'; card: number; rid?: number }
  /** A store fault for the card's next deduction, or (`refund`) its next refund of a failed handler's price (an `addBalance` call). */
  | { op: 'fault'; card: number; mode: FaultMode; refund?: true }
  /** The kit's upstream fails the next request of card `card` on `route` that the gateway forwards (CR-15.3). */
  | { op: 'upstream'; card: number; route: string; mode: UpstreamFaultMode };

/** What the generator draws before the retries are resolved: `again` sends the previous call once more (see {@link resolveRetries}). */
type Drawn = Operation | { op: 'again'; variant: Retry } | { op: 'retried'; call: Call } | { op: 'upstreamFailed'; mode: UpstreamFaultMode; call: Call };

/** How a retry differs from the call it repeats: not at all, another card (its clientId), or another route. */
type Retry = 'same' | 'otherCard' | 'otherRoute';

/** What the generator draws from. */
export interface HistoryShape {
  routes: readonly HistoryRoute[];
  /** Whether the target declares `storeFaults`. */
  storeFaults: boolean;
  /** Whether a paid `POST` route exists (malformed bodies are sent to it). */
  paidPost: boolean;
  /** Whether the target gives a failed handler's price back (declared `refundOnHandlerError`): refunds may then be faulted too. */
  refunds?: boolean;
  /** Whether the target is a gateway in front of the kit's upstream (declared `gateway`): the upstream may then fail requests, and their give-backs be faulted. */
  gateway?: boolean;
  maxOps: number;
}

/** The most spends a flood sends at once. */
const MAX_FLOOD = 120;

/** How many spends a flood on `route` sends: a few more than its smallest top-up pays for, so that the balance runs out. */
export function floodSize(route: HistoryRoute): number {
  return Math.ceil(route.minTopUp / route.price) + 8;
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
function operationArbitrary(shape: HistoryShape): fc.Arbitrary<Drawn> {
  const choices: Array<{ weight: number; arbitrary: fc.Arbitrary<Drawn> }> = [
    // A client whose request with a request id failed (a failing handler's 5xx) retries it at once, twice (CR-6.9).
    {
      weight: 10,
      arbitrary: callArbitrary(shape, true).map((call): Drawn => {
        const failing = shape.routes.some((route) => route.key === call.route && route.failing !== undefined);
        return failing && call.rid !== undefined ? { op: 'retried', call } : { op: 'call', call };
      }),
    },
    { weight: 2, arbitrary: fc.array(callArbitrary(shape, false), { minLength: 2, maxLength: 5 }).map((calls) => ({ op: 'burst', calls }) as const) },
    // One client's spends at once: what a deduction that is not atomic gets wrong (CR-6.7).
    {
      weight: 2,
      arbitrary: fc
        .tuple(cardArbitrary, fc.array(callArbitrary(shape, false), { minLength: 2, maxLength: 4 }))
        .map(([card, calls]) => ({ op: 'burst', calls: calls.map((call) => ({ ...call, card })) }) as const),
    },
    // A client retrying its last request (with its request id), another client or another route reusing that id (CR-6.9).
    { weight: 3, arbitrary: fc.constantFrom<Retry>('same', 'same', 'same', 'otherCard', 'otherRoute').map((variant) => ({ op: 'again', variant }) as const) },
  ];
  const floods = shape.routes.filter((route) => route.failing === undefined && route.price > 0 && floodSize(route) <= MAX_FLOOD);
  if (floods.length > 0) {
    choices.push({
      weight: 1,
      arbitrary: fc.record({ card: cardArbitrary, route: fc.constantFrom(...floods) }).map(({ card, route }) => ({ op: 'flood', card, route: route.key, count: floodSize(route) }) as const),
    });
  }
  if (shape.paidPost) {
    choices.push({
      weight: 2,
      arbitrary: fc.record({ card: cardArbitrary, rid: fc.option(fc.nat(RIDS - 1), { nil: undefined }) }).map((drawn) => withoutUndefined({ op: 'malformed', ...drawn }) as Operation),
    });
  }
  if (shape.gateway) {
    // A request the upstream fails, sent three times with its request id as a client retries a 502 (CR-15.3: the retry
    // is a new deduction, the third its repeat), once without one; half of them pay, so that the gate forwards them
    // (a spend of an unfunded card is refused before the upstream). A cut is drawn as often as a reset.
    const modes = fc.constantFrom<UpstreamFaultMode>('reset', 'reset', 'close', 'invalid', 'refuse', 'stall', 'cut', 'cut');
    choices.push({
      weight: 5,
      arbitrary: fc
        .record({ mode: modes, call: callArbitrary(shape, true), paying: fc.boolean() })
        .map(({ mode, call, paying }) => ({ op: 'upstreamFailed', mode, call: paying && !call.pay ? { ...call, pay: { method: 0 } } : call }) as const),
    });
  }
  if (shape.storeFaults) {
    choices.push({
      weight: 2,
      arbitrary: fc.record({ card: cardArbitrary, mode: fc.constantFrom<FaultMode>('reject', 'replyLost', 'delay') }).map((drawn) => ({ op: 'fault', ...drawn }) as const),
    });
    if (shape.refunds || shape.gateway) {
      choices.push({
        weight: 4,
        // A lost reply tells a refund applied twice; a rejection or a hold, one that lands after the repeat (CR-11.3,
        // CR-6.9); a gateway's give-back of an upstream failure is such a refund (CR-15.3).
        arbitrary: fc.record({ card: cardArbitrary, mode: fc.constantFrom<FaultMode>('reject', 'replyLost', 'replyLost', 'delay') }).map((drawn) => ({ op: 'fault', ...drawn, refund: true }) as const),
      });
    }
  }
  return fc.oneof(...choices);
}

/**
 * The drawn history made concrete, so that its operations meet: a call with a request id on a failing route is sent
 * three times in a row, as a client retries a 5xx with its request id (the third tells a served repeat from a refund
 * that landed first and made the second a new deduction); a refund fault is armed for the card of the next call
 * on a failing route or of the next request the upstream fails; a request the upstream fails is the upstream fault
 * for its card and route followed by the call, three times when it has a request id; each `again` becomes the call it retries (the last call
 * before it, of a burst its last call) as it was (`same`), by the next card (spending by clientId) or on the next route
 * of the profile, and is dropped when no call came before; a flood is sent by the last call's card, on the flooded
 * route of that call's currency when there is one (a client that just paid spends its balance down); a malformed body
 * is sent by the card that last paid in the paid POST's currency. Resolved when drawn, so that printed and replayed
 * histories hold plain operations.
 */
export function resolveRetries(drawn: readonly Drawn[], routes: readonly HistoryRoute[]): Operation[] {
  const operations: Operation[] = [];
  const currencyOf = (key: string): string | undefined => routes.find((route) => route.key === key)?.currency;
  const post = routes.find((route) => route.method === 'POST' && route.failing === undefined);
  let last: Call | undefined;
  let lastInPostCurrency: Call | undefined;
  const called = (call: Call | undefined): void => {
    last = call;
    // A malformed body goes to the client that last paid in the POST's currency (else the last that spent in it).
    if (call && post && currencyOf(call.route) === post.currency && (call.pay || !lastInPostCurrency?.pay)) lastInPostCurrency = call;
  };
  for (const [index, item] of drawn.entries()) {
    if (item.op === 'retried') {
      operations.push({ op: 'call', call: item.call }, { op: 'call', call: item.call }, { op: 'call', call: item.call });
      called(item.call);
      continue;
    }
    if (item.op === 'upstreamFailed') {
      const sends = item.call.rid === undefined ? 1 : 3;
      operations.push({ op: 'upstream', card: item.call.card, route: item.call.route, mode: item.mode }, ...Array.from({ length: sends }, (): Operation => ({ op: 'call', call: item.call })));
      called(item.call);
      continue;
    }
    if (item.op === 'fault' && item.refund) {
      // A refund fault is armed for the card of the next retried call or request the upstream fails (else the next
      // call on a failing route): the refund it fails is that call's.
      const later = drawn.slice(index + 1);
      const failing = later.find((next) => next.op === 'retried' || next.op === 'upstreamFailed')
        ?? later.find((next) => next.op === 'call' && routes.some((route) => route.key === next.call.route && route.failing !== undefined));
      operations.push(failing && 'call' in failing ? { ...item, card: failing.call.card } : item);
      continue;
    }
    if (item.op === 'flood' && last) {
      const currency = currencyOf(last.route);
      const same = routes.find((route) => route.currency === currency && route.failing === undefined && route.price > 0 && floodSize(route) <= MAX_FLOOD);
      operations.push(same ? { ...item, card: last.card, route: same.key, count: floodSize(same) } : { ...item, card: last.card });
      continue;
    }
    if (item.op === 'malformed' && lastInPostCurrency) {
      operations.push({ ...item, card: lastInPostCurrency.card });
      continue;
    }
    if (item.op !== 'again') {
      operations.push(item);
      if (item.op === 'call') called(item.call);
      if (item.op === 'burst') called(item.calls.at(-1));
      continue;
    }
    const previous: Call | undefined = last;
    if (!previous) continue;
    const at = routes.findIndex((route) => route.key === previous.route);
    const call: Call =
      item.variant === 'same'
        ? previous
        : item.variant === 'otherCard'
          ? withoutUndefined({ card: (previous.card + 1) % CARDS, route: previous.route, rid: previous.rid })
          : { ...previous, route: (routes[(at + 1) % routes.length] as HistoryRoute).key };
    operations.push({ op: 'call', call });
    called(call);
  }
  return operations;
}

/** The arbitrary of a whole history: 1 to `maxOps` operations. */
export function historyArbitrary(shape: HistoryShape): fc.Arbitrary<Operation[]> {
  return fc.array(operationArbitrary(shape), { minLength: 1, maxLength: shape.maxOps, size: 'max' }).map((drawn) => resolveRetries(drawn, shape.routes));
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
    case 'flood':
      return `card ${operation.card} spends on ${operation.route} ${operation.count} times at once`;
    case 'malformed':
      return `card ${operation.card} spends on the paid POST with a body that does not parse${operation.rid === undefined ? '' : ` rid ${operation.rid}`}`;
    case 'fault':
      return `the store fails card ${operation.card}'s next ${operation.refund ? 'refund' : 'deduction'} (${operation.mode === 'delay' ? 'held, then rejected' : operation.mode === 'replyLost' ? 'applied, reply lost' : 'rejected'})`;
    case 'upstream':
      return `the upstream fails card ${operation.card}'s next forwarded request on ${operation.route} (${UPSTREAM_FAULT_WORDS[operation.mode]})`;
  }
}

/** What each upstream fault does, in words. */
const UPSTREAM_FAULT_WORDS: Readonly<Record<UpstreamFaultMode, string>> = {
  refuse: 'connection refused: 502',
  reset: 'connection reset: 502',
  close: 'closed without an answer: 502',
  invalid: 'an answer that is not HTTP: 502',
  stall: "no answer within the gateway's timeout: 504",
  cut: 'the answer cut off after its status line',
};
