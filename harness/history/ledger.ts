// The ledger model of a history: every state the target's store may be in (one per outcome of the calls whose outcome is unknown), checked against each answer.

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
  outcome: CallOutcome;
  /** The answer's `creditsRemaining`, when it carried a successful `payment-response`. */
  creditsRemaining?: number;
  chargeId?: string;
}

/** One request id a client kept with a deduction (CR-6.9). */
interface KeptId {
  route: string;
  repeated: boolean;
}

/** One client as a world sees it. */
interface ClientState {
  exists: boolean;
  balances: Record<string, number>;
  rids: Record<string, KeptId>;
  /** PaymentIntents credited to it, by id (a `chargeId` seen), and credits of calls whose answer was lost. */
  charges: Record<string, { currency: string; units: number }>;
  unknownCredits: Array<{ currency: string; units: number }>;
  /** Malformed paid requests refused since its balance was last seen, per currency (a price taken for one: CR-4.7). */
  refusedSince: Record<string, string[]>;
}

/** One possible state of the target's store. */
interface World {
  clients: ClientState[];
}

/** A succeeded PaymentIntent the emulator's journal shows for one card. */
export interface JournalCharge {
  card: number;
  id: string;
  currency: string;
  units: number;
}

type Step = { worlds: World[] } | { violation: Violation };

/** Beyond this many possible states the model stops judging (it says so) rather than guess. */
const MAX_WORLDS = 4096;

const clone = (world: World): World => structuredClone(world);

function emptyClient(): ClientState {
  return { exists: false, balances: {}, rids: {}, charges: {}, unknownCredits: [], refusedSince: {} };
}

function violation(ids: string[], message: string): Step {
  return { violation: { ids, message } };
}

/** The world after `change` is applied to a copy of `client`'s state. */
function next(world: World, card: number, change: (client: ClientState) => void): World {
  const copy = clone(world);
  const client = copy.clients[card] as ClientState;
  change(client);
  return copy;
}

function balanceOf(client: ClientState, currency: string): number {
  return client.balances[currency] ?? 0;
}

/** A served call in one world. */
function served(world: World, o: Observation, concurrent: boolean, faulted: boolean): Step {
  const client = world.clients[o.card] as ClientState;
  const balance = balanceOf(client, o.currency);
  const kept = o.rid === undefined ? undefined : client.rids[o.rid];
  const said = o.creditsRemaining === undefined ? 'served' : `served with creditsRemaining ${o.creditsRemaining}`;
  const seen = (c: ClientState): void => {
    c.refusedSince[o.currency] = [];
  };
  if (kept && kept.route === o.route && !kept.repeated) {
    if (o.chargeId !== undefined) return violation(['CR-6.9'], `${o.label}: ${said} and charged ${o.chargeId}, but it repeats request id ${o.rid}, whose deduction is kept: its repeat is served from the balance without a charge`);
    if (o.creditsRemaining !== undefined && o.creditsRemaining !== balance) {
      const again = o.creditsRemaining === balance - o.price ? ' (deducted again)' : '';
      return violation(['CR-6.9'], `${o.label}: ${said}${again}, but it repeats request id ${o.rid}, whose deduction is kept: the repeat is not deducted and answers the current balance ${balance}`);
    }
    const repeat = (c: ClientState): void => {
      (c.rids[o.rid as string] as KeptId).repeated = true;
      seen(c);
    };
    return { worlds: [next(world, o.card, repeat)] };
  }
  if (kept) {
    if (faulted && (o.creditsRemaining === undefined || o.creditsRemaining === balance) && o.chargeId === undefined) return { worlds: [world] };
    const why = kept.route === o.route ? 'its one repeat was already served' : `it was kept for ${kept.route}`;
    return violation(['CR-6.9'], `${o.label}: ${said}, but request id ${o.rid} is used up (${why}): the answer is invalid_payment naming requestId, with nothing deducted`);
  }
  const freeRepeat = o.rid !== undefined && o.creditsRemaining === balance && o.chargeId === undefined;
  if (o.chargeId !== undefined && o.topUp !== undefined) {
    if (client.exists && balance >= o.price && !concurrent) {
      return violation(['CR-7.4'], `${o.label}: charged ${o.chargeId} although the balance ${balance} covered the price ${o.price}: step 4 spends an existing balance first`);
    }
    const credit = client.charges[o.chargeId] === undefined ? o.topUp : 0;
    const after = balance + credit - o.price;
    if (after < 0) return violation(['CR-7.11'], `${o.label}: served with a charge of ${o.topUp} units although the balance ${balance} plus the top-up does not cover the price ${o.price}`);
    if (o.creditsRemaining !== undefined && o.creditsRemaining !== after) {
      return violation(['CR-7.13'], `${o.label}: ${said} after a charge of ${credit} units, but the balance ${balance} + ${credit} − ${o.price} is ${after}`);
    }
    return {
      worlds: [
        next(world, o.card, (c) => {
          c.exists = true;
          c.balances[o.currency] = after;
          c.charges[o.chargeId as string] = { currency: o.currency, units: o.topUp as number };
          if (o.rid !== undefined) c.rids[o.rid] = { route: o.route, repeated: false };
          seen(c);
        }),
      ],
    };
  }
  if (!client.exists || balance < o.price) {
    if (freeRepeat) return violation(['CR-6.9'], `${o.label}: served free (creditsRemaining ${balance}, nothing deducted), as the repeat of request id ${o.rid}, which this client never used: request ids are kept per client`);
    if (!client.exists) return violation(['CR-6.3'], `${o.label}: ${said}, but the client has no balance: an unknown clientId gets the insufficient-credits challenge`);
    return violation([concurrent ? 'CR-6.7' : 'CR-6.3'], `${o.label}: ${said}, but the balance ${balance} does not cover the price ${o.price}`);
  }
  const after = balance - o.price;
  if (o.creditsRemaining !== undefined && o.creditsRemaining !== after) {
    if (freeRepeat) return violation(['CR-6.9'], `${o.label}: served free (creditsRemaining ${balance}, nothing deducted), as the repeat of request id ${o.rid}, which this client never used: request ids are kept per client`);
    const refused = client.refusedSince[o.currency] ?? [];
    if (o.creditsRemaining < after && refused.length > 0 && (after - o.creditsRemaining) % o.price === 0) {
      return violation(['CR-4.7'], `${o.label}: ${said}, but the balance was ${balance} before this price of ${o.price}: ${after - o.creditsRemaining} units were taken for a request refused before its handler (${refused.join('; ')})`);
    }
    const ids = [concurrent ? 'CR-6.7' : 'CR-6.2'];
    return violation(ids, `${o.label}: ${said}, but the balance ${balance} less the price ${o.price} is ${after}`);
  }
  return {
    worlds: [
      next(world, o.card, (c) => {
        c.balances[o.currency] = after;
        if (o.rid !== undefined) c.rids[o.rid] = { route: o.route, repeated: false };
        seen(c);
      }),
    ],
  };
}

/** The worlds a call whose outcome is unknown may leave (CR-8.12): nothing happened, or what it attempted did. */
function unknownOutcome(world: World, o: Observation, faulted: boolean): World[] {
  const client = world.clients[o.card] as ClientState;
  const balance = balanceOf(client, o.currency);
  const kept = o.rid === undefined ? undefined : client.rids[o.rid];
  const worlds: World[] = [world];
  const keep = (c: ClientState): void => {
    if (o.rid !== undefined) c.rids[o.rid] = { route: o.route, repeated: false };
  };
  if (kept) {
    const used = (c: ClientState): void => {
      (c.rids[o.rid as string] as KeptId).repeated = true;
    };
    if (faulted && kept.route === o.route && !kept.repeated) worlds.push(next(world, o.card, used));
    return worlds;
  }
  const deduct = (c: ClientState): void => {
    c.balances[o.currency] = balanceOf(c, o.currency) - o.price;
    keep(c);
  };
  if (client.exists && balance >= o.price) worlds.push(next(world, o.card, deduct));
  if (o.topUp !== undefined) {
    const topUp = o.topUp;
    const credit = (c: ClientState): void => {
      c.exists = true;
      c.unknownCredits.push({ currency: o.currency, units: topUp });
      c.balances[o.currency] = balanceOf(c, o.currency) + topUp;
    };
    worlds.push(next(world, o.card, credit));
    const creditAndDeduct = (c: ClientState): void => {
      credit(c);
      deduct(c);
    };
    if (balance + topUp >= o.price) worlds.push(next(world, o.card, creditAndDeduct));
  }
  return worlds;
}

/** One call in one world: the worlds it may lead to, or the invariant it breaks. */
function step(world: World, o: Observation, concurrent: boolean, faulted: boolean): Step {
  const client = world.clients[o.card] as ClientState;
  const balance = balanceOf(client, o.currency);
  const kept = o.rid === undefined ? undefined : client.rids[o.rid];
  switch (o.outcome) {
    case 'served':
      return served(world, o, concurrent, faulted);
    case 'challenge':
      if (kept && kept.route === o.route && !kept.repeated) return violation(['CR-6.9'], `${o.label}: answered the insufficient-credits challenge, but it repeats request id ${o.rid}, whose deduction is kept: the repeat is served without a deduction`);
      if (kept) return violation(['CR-6.9'], `${o.label}: answered the insufficient-credits challenge, but request id ${o.rid} is used up: the answer is invalid_payment naming requestId`);
      if (o.topUp !== undefined && !concurrent) return violation(['CR-7.11'], `${o.label}: a first payment answered the insufficient-credits challenge, which only a concurrent spend of the new balance explains`);
      if (o.topUp === undefined && client.exists && balance >= o.price) {
        return violation([concurrent ? 'CR-6.7' : 'CR-6.2'], `${o.label}: answered the insufficient-credits challenge, but the balance ${balance} covers the price ${o.price}`);
      }
      return { worlds: [world] };
    case 'invalid':
      if (kept && (kept.route !== o.route || kept.repeated)) return { worlds: [world] };
      if (kept) return violation(['CR-6.9'], `${o.label}: answered invalid_payment, but it repeats request id ${o.rid}, whose deduction is kept and not repeated yet: the repeat is served`);
      if (o.rid !== undefined) return violation(['CR-6.9'], `${o.label}: answered invalid_payment, but this client never used request id ${o.rid}: request ids are kept per client, and a new one is a new deduction`);
      return violation(['CR-3.7'], `${o.label}: answered invalid_payment to a valid payload`);
    case 'unavailable':
    case 'unknown':
      return { worlds: unknownOutcome(world, o, faulted) };
    case 'refused':
      if (o.malformed) {
        const refused = (c: ClientState): void => {
          c.refusedSince[o.currency] = [...(c.refusedSince[o.currency] ?? []), o.label];
        };
        return { worlds: [next(world, o.card, refused)] };
      }
      return { worlds: [world] };
  }
}

const keyOf = (world: World): string => JSON.stringify(world);

function unique(worlds: readonly World[]): World[] {
  const seen = new Map<string, World>();
  for (const world of worlds) if (!seen.has(keyOf(world))) seen.set(keyOf(world), world);
  return [...seen.values()];
}

/**
 * The ledger of one history: every state the store may be in given the answers so far (one, until a call's outcome is
 * unknown), each answer checked against them. A call is explained when some state explains it; a burst when some
 * serial order of its calls does (CR-6.7); the end, when the PaymentIntents of the emulator's journal are credited once.
 */
export class Ledger {
  #worlds: World[];
  readonly #faulted = new Set<number>();
  /** Set when the states grew past {@link MAX_WORLDS}: the model stopped judging. */
  gaveUp?: string;

  constructor(cards: number) {
    this.#worlds = [{ clients: Array.from({ length: cards }, emptyClient) }];
  }

  /** How many states the store may be in. */
  get states(): number {
    return this.#worlds.length;
  }

  /** A store fault was armed for `card`: lapsed repeat claims may serve its ids once more (CR-6.9). */
  faulted(card: number): void {
    this.#faulted.add(card);
  }

  #settle(worlds: World[], label: string): void {
    this.#worlds = unique(worlds);
    if (this.#worlds.length > MAX_WORLDS) this.gaveUp = `after ${label}, ${this.#worlds.length} possible store states: the model stopped judging`;
  }

  /** One call, answered before the next was sent; resolves the invariant it breaks, if any. */
  observe(o: Observation): Violation | undefined {
    if (this.gaveUp) return undefined;
    const worlds: World[] = [];
    let first: Violation | undefined;
    for (const world of this.#worlds) {
      const result = step(world, o, false, this.#faulted.has(o.card));
      if ('violation' in result) first ??= result.violation;
      else worlds.push(...result.worlds);
    }
    if (worlds.length === 0) return first;
    this.#settle(worlds, o.label);
    return undefined;
  }

  /** Calls sent together: some serial order of them must explain every answer (CR-6.7, CR-6.2). */
  observeTogether(calls: readonly Observation[]): Violation | undefined {
    if (this.gaveUp) return undefined;
    const results: World[] = [];
    let deepest: { depth: number; violation: Violation } | undefined;
    const explore = (world: World, left: readonly Observation[], depth: number): void => {
      if (left.length === 0) return void results.push(world);
      left.forEach((o, index) => {
        const result = step(world, o, true, this.#faulted.has(o.card));
        if ('violation' in result) {
          if (!deepest || depth > deepest.depth) deepest = { depth, violation: result.violation };
          return;
        }
        const rest = left.filter((_, other) => other !== index);
        for (const after of result.worlds) explore(after, rest, depth + 1);
      });
    };
    for (const world of this.#worlds) explore(world, calls, 0);
    if (results.length === 0) {
      const found = deepest?.violation ?? { ids: ['CR-6.7'], message: 'no serial order explains the answers' };
      const sameCard = calls.filter((o) => calls.some((other) => other !== o && other.card === o.card)).length >= 2;
      const ids = found.ids.map((id) => (id === 'CR-6.2' && sameCard ? 'CR-6.7' : id));
      return { ids, message: `no serial order of these ${calls.length} calls sent together explains their answers; the closest fails at: ${found.message}` };
    }
    this.#settle(results, calls[0]?.label ?? 'a burst');
    return undefined;
  }

  /**
   * The end of a history: every succeeded PaymentIntent of the journal is credited once to its card's client, and every
   * credit the answers showed is one of them (CR-7.9, CR-7.13, CR-7.23).
   */
  reconcile(journal: readonly JournalCharge[]): Violation | undefined {
    if (this.gaveUp) return undefined;
    const charged = new Map<string, JournalCharge>(journal.map((charge) => [charge.id, charge]));
    const totals = (entries: Iterable<{ card: number; currency: string; units: number }>): Map<string, number> => {
      const sums = new Map<string, number>();
      for (const { card, currency, units } of entries) sums.set(`card ${card} ${currency}`, (sums.get(`card ${card} ${currency}`) ?? 0) + units);
      return sums;
    };
    const expected = totals(charged.values());
    let first: Violation | undefined;
    const fits = this.#worlds.filter((world) => {
      const credits: Array<{ card: number; currency: string; units: number }> = [];
      for (const [card, client] of world.clients.entries()) {
        for (const [id, { currency, units }] of Object.entries(client.charges)) {
          const found = charged.get(id);
          if (!found || found.card !== card || found.currency !== currency || found.units !== units) {
            first ??= { ids: ['CR-7.13'], message: `the answer of card ${card} named chargeId ${id} (${units} ${currency} units), which no succeeded PaymentIntent of that client in the emulator's journal matches` };
            return false;
          }
          credits.push({ card, currency, units });
        }
        for (const credit of client.unknownCredits) credits.push({ card, ...credit });
      }
      const got = totals(credits);
      for (const key of new Set([...expected.keys(), ...got.keys()])) {
        const want = expected.get(key) ?? 0;
        const have = got.get(key) ?? 0;
        if (want === have) continue;
        first ??=
          want > have
            ? { ids: ['CR-7.9', 'CR-7.13'], message: `charged but not credited: ${key} was charged ${want} units in succeeded PaymentIntents (${[...charged.values()].filter((c) => `card ${c.card} ${c.currency}` === key).map((c) => `${c.id} ${c.units}`).join(', ')}), and the answers account for ${have}` }
            : { ids: ['CR-7.23'], message: `${key} was credited ${have} units, more than the ${want} its succeeded PaymentIntents charged` };
        return false;
      }
      return true;
    });
    if (fits.length === 0) return first;
    this.#worlds = fits;
    return undefined;
  }

  /** The balances every remaining state agrees on, per card and currency, for the report (undefined where they differ). */
  balances(): Array<Record<string, number | undefined>> {
    const [first, ...rest] = this.#worlds;
    if (!first) return [];
    return first.clients.map((client, card) => {
      const out: Record<string, number | undefined> = {};
      for (const [currency, units] of Object.entries(client.balances)) {
        out[currency] = rest.every((world) => balanceOf(world.clients[card] as ClientState, currency) === units) ? units : undefined;
      }
      return out;
    });
  }
}
