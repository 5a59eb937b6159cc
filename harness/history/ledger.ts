// The ledger model of a history: every state the target's store may be in (one per outcome of the calls whose outcome is unknown), checked against each answer.
import { giveBackKeptId, giveBackMissing, giveBackMissingForChallenge, landDue, landGiveBacks, servedUnseen, upstreamFailed } from './ledger-gateway.ts';
import {
  balanceOf,
  type ClientState,
  type Context,
  emptyClient,
  fewestPrices,
  type Judged,
  type KeptId,
  landings,
  next,
  type Observation,
  oweRefund,
  preferred,
  reported,
  type Step,
  supersede,
  type Violation,
  violation,
  type World,
} from './ledger-world.ts';

export type { CallOutcome, Observation, Violation } from './ledger-world.ts';

/** A succeeded PaymentIntent the emulator's journal shows for one card. */
export interface JournalCharge {
  card: number;
  id: string;
  currency: string;
  units: number;
}

/** Beyond this many possible states the model stops judging (it says so) rather than guess. */
const MAX_WORLDS = 4096;

/**
 * Why a balance is `extra` units above the model's: a refund that landed after its request id's repeat was served
 * (CR-6.9), or one that was given back more than once (CR-11.3), a gateway's give-back among them (CR-15.3); undefined
 * when no refund explains it.
 */
function refundExcess(client: ClientState, o: Observation, extra: number, said: string, balance: number): Step | undefined {
  if (extra <= 0 || extra > 10_000_000) return undefined;
  const refunds = client.refunds.filter((refund) => refund.currency === o.currency);
  const applied = refunds.filter((refund) => refund.state === 'applied');
  const late = refunds.filter((refund) => refund.state === 'superseded');
  const twice = fewestPrices(extra, applied.map((refund) => refund.units));
  const either = fewestPrices(extra, [...applied, ...late].map((refund) => refund.units));
  const above = `${o.label}: ${said}, ${extra} units above the balance ${balance} less the price ${o.price}`;
  // Ranked so that among the worlds that explain the answers so far the one with the fewest prices too many wins, and
  // on a tie a late refund (more specific) over one applied twice.
  if (either !== undefined && late.length > 0 && (twice === undefined || either <= twice)) {
    const names = late.map((refund) => `${refund.label} (request id ${refund.rid})`).join(', ');
    return violation(late.some((refund) => refund.gateway) ? ['CR-6.9', 'CR-15.3'] : ['CR-6.9'], `${above}: the price of ${names} came back after its request id's repeat was served; a give-back that arrives once the repeat was answered gives nothing back (the deduction paid for the repeat)`, 1000 - 10 * either + 2);
  }
  if (twice !== undefined) {
    const names = applied.map((refund) => `${refund.label} (${refund.units})`).join(', ');
    return violation(applied.some((refund) => refund.gateway) ? ['CR-11.3', 'CR-15.3'] : ['CR-11.3'], `${above}: ${twice === 1 ? 'one price' : `${twice} prices`} of the refunds of ${names} given back again; a refund is applied at most once per refund id, however often it is retried`, 1000 - 10 * twice + 1);
  }
  return undefined;
}


/** A request id answered as kept although only a malformed request refused before its handler carried it: that request was deducted (CR-4.7). */
function malformedKept(o: Observation): Step {
  return violation(['CR-4.7'], `${o.label}: answered as if request id ${o.rid} were kept, but the only request that carried it had a body that does not parse and was refused before its handler: it was deducted, and a request refused before its handler is never charged`);
}

/** A served call in one world. */
function served(world: World, o: Observation, ctx: Context): Step {
  const { concurrent, faulted } = ctx;
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
      supersede(c, o.rid as string);
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
      return refundExcess(client, o, o.creditsRemaining - after, said, balance + credit)
        ?? giveBackMissing(client, o, after - o.creditsRemaining, said, balance + credit)
        ?? violation(['CR-7.13'], `${o.label}: ${said} after a charge of ${credit} units, but the balance ${balance} + ${credit} − ${o.price} is ${after}`);
    }
    return {
      worlds: [
        next(world, o.card, (c) => {
          c.exists = true;
          c.balances[o.currency] = after;
          c.charges[o.chargeId as string] = { currency: o.currency, units: o.topUp as number };
          if (o.rid !== undefined) c.rids[o.rid] = { route: o.route, repeated: false };
          oweRefund(c, o, ctx);
          seen(c);
        }),
      ],
    };
  }
  if (freeRepeat && client.malformedRids.includes(o.rid as string)) return malformedKept(o);
  const givenBackId = freeRepeat ? giveBackKeptId(client, o, `served free (creditsRemaining ${balance}, nothing deducted)`) : undefined;
  if (givenBackId) return givenBackId;
  if (!client.exists || balance < o.price) {
    if (freeRepeat) return violation(['CR-6.9'], `${o.label}: served free (creditsRemaining ${balance}, nothing deducted), as the repeat of request id ${o.rid}, which this client never used: request ids are kept per client`);
    if (!client.exists) return violation(['CR-6.3'], `${o.label}: ${said}, but the client has no balance: an unknown clientId gets the insufficient-credits challenge`);
    return violation([concurrent ? 'CR-6.7' : 'CR-6.3'], `${o.label}: ${said}, but the balance ${balance} does not cover the price ${o.price}`);
  }
  const after = balance - o.price;
  if (o.creditsRemaining !== undefined && o.creditsRemaining !== after) {
    if (freeRepeat) return violation(['CR-6.9'], `${o.label}: served free (creditsRemaining ${balance}, nothing deducted), as the repeat of request id ${o.rid}, which this client never used: request ids are kept per client`);
    const excess = refundExcess(client, o, o.creditsRemaining - after, said, balance) ?? giveBackMissing(client, o, after - o.creditsRemaining, said, balance);
    if (excess) return excess;
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
        oweRefund(c, o, ctx);
        seen(c);
      }),
    ],
  };
}

/** The worlds a call whose outcome is unknown may leave (CR-8.12): nothing happened, or what it attempted did. */
function unknownOutcome(world: World, o: Observation, ctx: Context): World[] {
  const { faulted } = ctx;
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
      supersede(c, o.rid as string);
    };
    if (faulted && kept.route === o.route && !kept.repeated) worlds.push(next(world, o.card, used));
    // Its repeat claimed, the claim then lapsed: the id's pending refund is superseded all the same (CR-6.9).
    if (kept.route === o.route && !kept.repeated && client.refunds.some((refund) => refund.rid === o.rid && refund.state === 'pending')) {
      worlds.push(next(world, o.card, (c) => supersede(c, o.rid as string)));
    }
    return worlds;
  }
  const deduct = (c: ClientState): void => {
    c.balances[o.currency] = balanceOf(c, o.currency) - o.price;
    keep(c);
    oweRefund(c, o, ctx);
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
function step(world: World, o: Observation, ctx: Context): Step {
  const { concurrent } = ctx;
  const client = world.clients[o.card] as ClientState;
  const balance = balanceOf(client, o.currency);
  const kept = o.rid === undefined ? undefined : client.rids[o.rid];
  switch (o.outcome) {
    case 'served':
      return served(world, o, ctx);
    case 'challenge':
      if (kept && kept.route === o.route && !kept.repeated) return violation(['CR-6.9'], `${o.label}: answered the insufficient-credits challenge, but it repeats request id ${o.rid}, whose deduction is kept: the repeat is served without a deduction`);
      if (kept) return violation(['CR-6.9'], `${o.label}: answered the insufficient-credits challenge, but request id ${o.rid} is used up: the answer is invalid_payment naming requestId`);
      if (o.topUp !== undefined && !concurrent) return violation(['CR-7.11'], `${o.label}: a first payment answered the insufficient-credits challenge, which only a concurrent spend of the new balance explains`);
      if (o.topUp === undefined && client.exists && balance >= o.price) {
        return giveBackMissingForChallenge(client, o, balance)
          ?? violation([concurrent ? 'CR-6.7' : 'CR-6.2'], `${o.label}: answered the insufficient-credits challenge, but the balance ${balance} covers the price ${o.price}`);
      }
      return { worlds: [world] };
    case 'invalid':
      if (kept && (kept.route !== o.route || kept.repeated)) return { worlds: [world] };
      if (kept) {
        return giveBackKeptId(client, o, 'answered invalid_payment')
          ?? violation(['CR-6.9'], `${o.label}: answered invalid_payment, but it repeats request id ${o.rid}, whose deduction is kept and not repeated yet: the repeat is served`);
      }
      if (o.rid !== undefined && client.malformedRids.includes(o.rid)) return malformedKept(o);
      if (o.rid !== undefined) return violation(['CR-6.9'], `${o.label}: answered invalid_payment, but this client never used request id ${o.rid}: request ids are kept per client, and a new one is a new deduction`);
      return violation(['CR-3.7'], `${o.label}: answered invalid_payment to a valid payload`);
    case 'unavailable':
    case 'unknown':
      return { worlds: unknownOutcome(world, o, ctx) };
    case 'upstreamFailed':
      return upstreamFailed(world, o, ctx);
    case 'servedUnseen':
      return servedUnseen(world, o, ctx);
    case 'refused':
      if (o.malformed) {
        const refused = (c: ClientState): void => {
          c.refusedSince[o.currency] = [...(c.refusedSince[o.currency] ?? []), o.label];
          if (o.rid !== undefined) c.malformedRids.push(o.rid);
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

/** What the model is told about the target beside the answers. */
export interface LedgerOptions {
  /** The target gives a failed handler's price back (declared `refundOnHandlerError`), after its answer. */
  refunds?: boolean;
}

/** The serial orders a burst explores at most before the model stops judging it (it says so). */
const MAX_ORDERS = 200_000;

/** What makes two calls of a burst interchangeable: the same call with the same answer (only one of them is tried first). */
function signature(o: Observation): string {
  const { label: _label, ...rest } = o;
  return JSON.stringify(rest);
}

/**
 * The ledger of one history: every state the store may be in given the answers so far (one, until a call's outcome is
 * unknown or a refund may not have landed yet), each answer checked against them. A call is explained when some state
 * explains it; a burst when some serial order of its calls does (CR-6.7); the end, when the PaymentIntents of the
 * emulator's journal are credited once.
 */
export class Ledger {
  #worlds: World[];
  readonly #faulted = new Set<number>();
  readonly #refundFaulted = new Set<number>();
  readonly #refunds: boolean;
  /** Set when the states grew past {@link MAX_WORLDS}: the model stopped judging. */
  gaveUp?: string;

  constructor(cards: number, options: LedgerOptions = {}) {
    this.#worlds = [{ clients: Array.from({ length: cards }, emptyClient) }];
    this.#refunds = options.refunds === true;
  }

  /** How many states the store may be in. */
  get states(): number {
    return this.#worlds.length;
  }

  /** A store fault was armed for `card`'s deductions: lapsed repeat claims may serve its ids once more (CR-6.9). */
  faulted(card: number): void {
    this.#faulted.add(card);
  }

  /**
   * A store fault was armed for `card`'s refunds: a gateway's give-back of its requests may land after the answer,
   * or never once a repeat was served first (CR-15.3, CR-6.9), instead of with the answer.
   */
  refundFaulted(card: number): void {
    this.#refundFaulted.add(card);
  }

  /**
   * The store is back and the give-backs had the time of their retries: every gateway give-back that no served
   * repeat superseded has landed (CR-15.3: exactly once, a store failure included). Called before the closing reads.
   */
  giveBacksLanded(): void {
    if (this.gaveUp) return;
    this.#worlds = unique(this.#worlds.map(landGiveBacks));
  }

  /** Whether some state still waits for a refund to land (the history should let it land before its closing reads). */
  get refundsPending(): boolean {
    return this.#worlds.some((world) => world.clients.some((client) => client.refunds.some((refund) => refund.state === 'pending')));
  }

  #context(o: Observation, concurrent: boolean): Context {
    return { concurrent, faulted: this.#faulted.has(o.card), refundFaulted: this.#refundFaulted.has(o.card), refunds: this.#refunds };
  }

  #settle(worlds: World[], label: string): void {
    this.#worlds = unique(worlds);
    if (this.#worlds.length > MAX_WORLDS) this.gaveUp = `after ${label}, ${this.#worlds.length} possible store states: the model stopped judging`;
  }

  /** One call, answered before the next was sent; resolves the invariant it breaks, if any. */
  observe(o: Observation): Violation | undefined {
    if (this.gaveUp) return undefined;
    const worlds: World[] = [];
    let first: Judged | undefined;
    for (const world of unique(this.#worlds.flatMap((each) => landings(each, new Set([o.card]))))) {
      const result = step(world, o, this.#context(o, false));
      if ('violation' in result) first = preferred(first, result.violation);
      else worlds.push(...result.worlds);
    }
    if (worlds.length === 0) return reported(first);
    // A gateway's give-back is made before its 502 or 504 (unless its refunds were faulted): it landed by now.
    this.#settle(worlds.map(landDue), o.label);
    return undefined;
  }

  /**
   * The worlds some serial order of `calls` leads to (refunds landing between them), and the deepest failure of the
   * orders that fail; `undefined` worlds when the orders ran past {@link MAX_ORDERS}.
   */
  #explore(calls: readonly Observation[]): { worlds?: World[]; deepest?: { depth: number; violation: Judged } } {
    const results: World[] = [];
    const cards = new Set(calls.map((o) => o.card));
    const signatures = calls.map(signature);
    const visited = new Set<string>();
    let deepest: { depth: number; violation: Judged } | undefined;
    let orders = 0;
    const explore = (world: World, left: readonly number[], depth: number): void => {
      if (++orders > MAX_ORDERS) return;
      if (left.length === 0) return void results.push(world);
      const key = `${keyOf(world)}|${left.map((index) => signatures[index]).sort().join(',')}`;
      if (visited.has(key)) return;
      visited.add(key);
      const tried = new Set<string>();
      for (const index of left) {
        const o = calls[index] as Observation;
        if (tried.has(signatures[index] as string)) continue;
        tried.add(signatures[index] as string);
        const same = calls.some((other, at) => at !== index && other.card === o.card);
        const result = step(world, o, this.#context(o, same));
        if ('violation' in result) {
          if (!deepest || depth > deepest.depth || (depth === deepest.depth && (result.violation.rank ?? 0) > (deepest.violation.rank ?? 0))) deepest = { depth, violation: result.violation };
          continue;
        }
        const rest = left.filter((other) => other !== index);
        for (const after of result.worlds) explore(after, rest, depth + 1);
      }
      // A refund of an earlier failed handler may land between the calls of the burst.
      for (const landed of landings(world, cards).slice(1)) explore(landed, left, depth);
    };
    for (const world of this.#worlds) explore(world, calls.map((_, index) => index), 0);
    if (orders > MAX_ORDERS) return {};
    return { worlds: results, ...(deepest ? { deepest } : {}) };
  }

  /** Calls sent together: some serial order of them must explain every answer (CR-6.7, CR-6.2). */
  observeTogether(calls: readonly Observation[]): Violation | undefined {
    if (this.gaveUp) return undefined;
    const { worlds, deepest } = this.#explore(calls);
    if (worlds === undefined) {
      this.gaveUp = `${calls[0]?.label ?? 'a burst'}: more than ${MAX_ORDERS} serial orders of its ${calls.length} calls: the model stopped judging`;
      return undefined;
    }
    if (worlds.length === 0) {
      const found = deepest?.violation ?? { ids: ['CR-6.7'], message: 'no serial order explains the answers' };
      const crossed = this.#crossed(calls);
      if (crossed) return crossed;
      const sameCard = calls.filter((o) => calls.some((other) => other !== o && other.card === o.card)).length >= 2;
      const ids = found.ids.map((id) => (id === 'CR-6.2' && sameCard ? 'CR-6.7' : id));
      return { ids, message: `no serial order of these ${calls.length} calls sent together explains their answers; the closest fails at: ${found.message}` };
    }
    this.#settle(worlds.map(landDue), calls[0]?.label ?? 'a burst');
    return undefined;
  }

  /**
   * Calls of several clients sent together whose answers no serial order explains, but some exchange of answers between
   * different clients' calls does: each got another's outcome (CR-6.2: a batch gives each deduction its own outcome).
   */
  #crossed(calls: readonly Observation[]): Violation | undefined {
    if (calls.length > 6 || new Set(calls.map((o) => o.card)).size < 2) return undefined;
    const answer = (o: Observation) => ({ outcome: o.outcome, creditsRemaining: o.creditsRemaining, chargeId: o.chargeId });
    const swapped = (from: Observation, to: Observation): Observation => {
      const { outcome, creditsRemaining, chargeId, ...call } = to;
      const given = answer(from);
      return { ...call, outcome: given.outcome, ...(given.creditsRemaining === undefined ? {} : { creditsRemaining: given.creditsRemaining }), ...(given.chargeId === undefined ? {} : { chargeId: given.chargeId }) };
    };
    const permutations = (items: number[]): number[][] => (items.length <= 1 ? [items] : items.flatMap((item, at) => permutations(items.filter((_, other) => other !== at)).map((rest) => [item, ...rest])));
    for (const order of permutations(calls.map((_, index) => index))) {
      const moved = order.filter((from, to) => from !== to);
      if (moved.length === 0 || moved.every((from) => (calls[from] as Observation).card === (calls[order.indexOf(from)] as Observation).card)) continue;
      const exchanged = calls.map((to, at) => swapped(calls[order[at] as number] as Observation, to));
      if (this.#explore(exchanged).worlds?.length) {
        const pairs = order.flatMap((from, to) => (from === to ? [] : [`${(calls[to] as Observation).label} got the answer of ${(calls[from] as Observation).label}`]));
        return { ids: ['CR-6.2'], message: `no serial order of these ${calls.length} calls of different clients sent together explains their answers, but they fit once exchanged: ${pairs.join('; ')}. Each deduction is answered with its own client's outcome and balance, however many are made together` };
      }
    }
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
