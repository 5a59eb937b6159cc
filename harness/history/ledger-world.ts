// The states of the ledger model: what one possible state of the target's store holds per client, and the steps that change a copy of it.

/** An invariant broken: the requirements it enforces and what happened. */
export interface Violation {
  ids: string[];
  message: string;
}

/** How one paid call ended, as the kit saw it. */
export type CallOutcome =
  /** Its handler ran (or, without the handled route, a 2xx with a successful `payment-response`). */
  | 'served'
  /** The insufficient-credits challenge (CR-6.3). */
  | 'challenge'
  /** A payment error `invalid_payment` (CR-3.8, CR-6.9). */
  | 'invalid'
  /** 503 `service_unavailable`: a store failure whose outcome may be unknown (CR-8.12). */
  | 'unavailable'
  /** No answer (timeout, connection broken): anything may have happened. */
  | 'unknown'
  /** 502 or 504 from a gateway whose upstream gave no answer (CR-15.3): the gate served it, then gave its deduction back. */
  | 'upstreamFailed'
  /** A request the gate served whose answer broke off after its status line, its `payment-response` unseen (CR-15.3: the price stands). */
  | 'servedUnseen'
  /** Any other answer that is not a service: a framework's refusal, another payment error, a rate limit. */
  | 'refused';

/** One paid call and what the kit saw of it. */
export interface Observation {
  /** Who is speaking, for messages: `op 3: card 1 spends on GET /api/weather rid 2`. */
  label: string;
  card: number;
  route: string;
  price: number;
  currency: string;
  /** The request id, when the payload carried one. */
  rid?: string;
  /** The units a first payment tops up (the payload's `topUpAmount`, else the route's `minTopUp`); absent for a spend. */
  topUp?: number;
  /** A paid request whose body does not parse (CR-4.7). */
  malformed?: boolean;
  /** A route whose handler fails (the profile's `failingHandlers`): with refunds declared, its deduction is given back. */
  failing?: boolean;
  outcome: CallOutcome;
  /** The answer's `creditsRemaining`, when it carried a successful `payment-response`. */
  creditsRemaining?: number;
  chargeId?: string;
}

/** One request id a client kept with a deduction (CR-6.9). */
export interface KeptId {
  route: string;
  repeated: boolean;
}

/**
 * The give-back of a failed handler's deduction (`refundOnHandlerError`, CR-4.7, CR-11.3) or of a request a gateway's
 * upstream gave no answer to (CR-15.3): `pending` until it lands, which may be any time after the answer (the target
 * refunds after answering, and retries a failed refund in the background); `superseded` once its request id's repeat
 * was served first (CR-6.9), after which it never lands.
 */
export interface Refund {
  label: string;
  currency: string;
  units: number;
  rid?: string;
  state: 'pending' | 'applied' | 'superseded';
  /** A gateway's give-back of a request its upstream failed (CR-15.3): it lands by the closing reads at the latest. */
  gateway?: true;
  /** Landed once the answer came (a gateway's give-back whose store calls were not faulted: its first attempt precedes the 502). */
  due?: true;
}

/** One client as a world sees it. */
export interface ClientState {
  exists: boolean;
  balances: Record<string, number>;
  rids: Record<string, KeptId>;
  /** PaymentIntents credited to it, by id (a `chargeId` seen), and credits of calls whose answer was lost. */
  charges: Record<string, { currency: string; units: number }>;
  unknownCredits: Array<{ currency: string; units: number }>;
  /** Malformed paid requests refused since its balance was last seen, per currency (a price taken for one: CR-4.7). */
  refusedSince: Record<string, string[]>;
  /** The give-backs of its failed handlers' deductions (with refunds declared). */
  refunds: Refund[];
  /** Request ids of malformed paid requests refused before their handler: kept by nothing (CR-4.7). */
  malformedRids: string[];
}

/** One possible state of the target's store. */
export interface World {
  clients: ClientState[];
}

/** A broken invariant as a world found it; `rank` orders the explanations of several worlds (the most specific wins). */
export type Judged = Violation & { rank?: number };

export type Step = { worlds: World[] } | { violation: Judged };

/** How one call is judged: sent with other calls of its card (CR-6.7), its card's deductions or refunds faulted, refunds declared. */
export interface Context {
  concurrent: boolean;
  faulted: boolean;
  /** A store fault was armed for the card's refunds: a gateway's give-back may land after its answer (CR-15.3). */
  refundFaulted: boolean;
  refunds: boolean;
}

const clone = (world: World): World => structuredClone(world);

export function emptyClient(): ClientState {
  return { exists: false, balances: {}, rids: {}, charges: {}, unknownCredits: [], refusedSince: {}, refunds: [], malformedRids: [] };
}

export function violation(ids: string[], message: string, rank?: number): Step {
  return { violation: { ids, message, ...(rank === undefined ? {} : { rank }) } };
}

/** The more specific of two explanations of one answer (the first on a tie). */
export function preferred(a: Judged | undefined, b: Judged): Judged {
  return a === undefined || (b.rank ?? 0) > (a.rank ?? 0) ? b : a;
}

/** A violation without its rank, as reported. */
export function reported(judged: Judged | undefined): Violation | undefined {
  if (!judged) return undefined;
  const { rank: _rank, ...plain } = judged;
  return plain;
}

/** Owes `o`'s price back when its handler failed and the target refunds (the refund lands later: {@link land}). */
export function oweRefund(c: ClientState, o: Observation, ctx: Context): void {
  if (ctx.refunds && o.failing) c.refunds.push({ label: o.label, currency: o.currency, units: o.price, ...(o.rid === undefined ? {} : { rid: o.rid }), state: 'pending' });
}

/** The world after `card`'s pending refund `index` landed: the price back, its request id forgotten (CR-6.9, CR-11.3). */
export function land(world: World, card: number, index: number): World {
  return next(world, card, (c) => {
    const refund = c.refunds[index] as Refund;
    refund.state = 'applied';
    c.balances[refund.currency] = balanceOf(c, refund.currency) + refund.units;
    if (refund.rid !== undefined) delete c.rids[refund.rid];
  });
}

/** Every world `world` may be in once any of the pending refunds of `cards` landed. */
export function landings(world: World, cards: ReadonlySet<number>): World[] {
  let worlds = [world];
  for (const card of cards) {
    const pending = (world.clients[card] as ClientState).refunds.flatMap((refund, index) => (refund.state === 'pending' ? [index] : []));
    for (const index of pending) worlds = worlds.flatMap((each) => [each, land(each, card, index)]);
  }
  return worlds;
}

/** A repeat of `rid` was served (or may have been): a refund still pending under that id never lands (CR-6.9). */
export function supersede(c: ClientState, rid: string): void {
  for (const refund of c.refunds) if (refund.rid === rid && refund.state === 'pending') refund.state = 'superseded';
}


/** The fewest prices among `units` (each usable any number of times) that add up to `extra`; undefined when none do. */
export function fewestPrices(extra: number, units: readonly number[]): number | undefined {
  const distinct = [...new Set(units)].filter((unit) => unit > 0);
  if (distinct.length === 0) return undefined;
  const fewest = new Array<number>(extra + 1).fill(Number.POSITIVE_INFINITY);
  fewest[0] = 0;
  for (let sum = 1; sum <= extra; sum++) {
    for (const unit of distinct) if (unit <= sum) fewest[sum] = Math.min(fewest[sum] as number, (fewest[sum - unit] as number) + 1);
  }
  const found = fewest[extra] as number;
  return Number.isFinite(found) ? found : undefined;
}

/** The world after `change` is applied to a copy of `client`'s state. */
export function next(world: World, card: number, change: (client: ClientState) => void): World {
  const copy = clone(world);
  const client = copy.clients[card] as ClientState;
  change(client);
  return copy;
}

export function balanceOf(client: ClientState, currency: string): number {
  return client.balances[currency] ?? 0;
}

