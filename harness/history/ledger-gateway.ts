// The gateway rules of the ledger model (CR-15.3, CR-6.9): a request its upstream gave no answer to is given back whole exactly once, a cut answer's price stands, and what a kept price looks like later.
import {
  balanceOf,
  type ClientState,
  type Context,
  fewestPrices,
  type KeptId,
  land,
  next,
  type Observation,
  oweRefund,
  type Refund,
  type Step,
  supersede,
  violation,
  type World,
} from './ledger-world.ts';

/** How a kept price is ranked among the explanations of one answer: below a refund given back too often (CR-11.3, CR-6.9). */
const KEPT_PRICE_RANK = 900;

/**
 * The worlds of a request the gate forwarded to the upstream (it was served), whatever then became of its answer:
 * the repeat of its kept request id used (a claim whose confirmation failed may lapse), or a deduction from the
 * balance, or, for a first payment the balance did not cover, the top-up credited (its PaymentIntent unseen: the
 * answer carried no `payment-response`) and the deduction made; `after` then changes the deduction's client. A
 * request the gate should have refused (a used-up request id, a balance that does not cover the price) breaks the
 * requirement it would have been refused by.
 */
function forwarded(world: World, o: Observation, ctx: Context, answered: string, after: (c: ClientState) => void): Step {
  const client = world.clients[o.card] as ClientState;
  const balance = balanceOf(client, o.currency);
  const kept = o.rid === undefined ? undefined : client.rids[o.rid];
  if (kept) {
    if (kept.route === o.route && !kept.repeated) {
      // Served as the repeat: nothing was deducted, so nothing is owed back (CR-6.9).
      const used = next(world, o.card, (c) => {
        (c.rids[o.rid as string] as KeptId).repeated = true;
        supersede(c, o.rid as string);
      });
      return { worlds: ctx.faulted ? [used, world] : [used] };
    }
    if (ctx.faulted) return { worlds: [world] };
    const why = kept.route === o.route ? 'its one repeat was already served' : `it was kept for ${kept.route}`;
    return violation(['CR-6.9'], `${answered}, so the gate forwarded it, but request id ${o.rid} is used up (${why}): the gate answers invalid_payment naming requestId and forwards nothing`);
  }
  const deduct = (c: ClientState): void => {
    c.balances[o.currency] = balanceOf(c, o.currency) - o.price;
    if (o.rid !== undefined) c.rids[o.rid] = { route: o.route, repeated: false };
    after(c);
  };
  const worlds: World[] = [];
  const covered = client.exists && balance >= o.price;
  if (covered) worlds.push(next(world, o.card, deduct));
  const topUp = o.topUp;
  if (topUp !== undefined && (!covered || ctx.concurrent) && balance + topUp >= o.price) {
    const creditAndDeduct = (c: ClientState): void => {
      c.exists = true;
      c.unknownCredits.push({ currency: o.currency, units: topUp });
      c.balances[o.currency] = balanceOf(c, o.currency) + topUp;
      deduct(c);
    };
    worlds.push(next(world, o.card, creditAndDeduct));
  }
  if (worlds.length > 0) return { worlds };
  const short = client.exists ? `the balance ${balance} does not cover the price ${o.price}` : 'the client has no balance';
  return violation([ctx.concurrent ? 'CR-6.7' : 'CR-6.3'], `${answered}, so the gate forwarded it as paid, but ${short}: such a request gets the insufficient-credits challenge and is never forwarded`);
}

/**
 * A 502 or 504 the gateway answered itself, its upstream having given no answer (CR-15.3): the gate served the
 * request (a deduction, or its request id's repeat), and gives a deduction back whole, exactly once: the price, and
 * the request id forgotten, so that the same request sent again is a new deduction (CR-6.9). The give-back is due
 * with the answer (the reference's first attempt precedes it), unless the card's refunds were faulted: then it may
 * land later, and not at all once the request id's repeat was served first (CR-6.9).
 */
export function upstreamFailed(world: World, o: Observation, ctx: Context): Step {
  const giveBack = (c: ClientState): void => {
    const refund: Refund = { label: o.label, currency: o.currency, units: o.price, ...(o.rid === undefined ? {} : { rid: o.rid }), state: 'pending', gateway: true };
    if (!ctx.refundFaulted) refund.due = true;
    c.refunds.push(refund);
  };
  return forwarded(world, o, ctx, `${o.label}: answered by the gateway itself, its upstream giving no answer`, giveBack);
}

/**
 * A request the gate served whose answer broke off after its status line, its `payment-response` unseen: the
 * handler's answer was on its way, so the deduction stands (CR-15.3; a failing handler's is owed back only with
 * `refundOnHandlerError`, CR-4.7).
 */
export function servedUnseen(world: World, o: Observation, ctx: Context): Step {
  return forwarded(world, o, ctx, `${o.label}: its answer broke off after its status line`, (c) => oweRefund(c, o, ctx));
}

/** `world` with every pending refund that `which` picks landed. */
function landed(world: World, which: (refund: Refund) => boolean): World {
  let out = world;
  for (const [card, client] of world.clients.entries()) {
    for (const [index, refund] of client.refunds.entries()) if (refund.state === 'pending' && which(refund)) out = land(out, card, index);
  }
  return out;
}

/** `world` once the answers it was told of came: every give-back due with its answer landed (CR-15.3). */
export function landDue(world: World): World {
  return landed(world, (refund) => refund.due === true);
}

/** `world` once the store is back and the give-backs had their retries: every gateway give-back not superseded landed (CR-15.3). */
export function landGiveBacks(world: World): World {
  return landed(world, (refund) => refund.gateway === true);
}

/** The gateway give-backs that landed for `client` in `currency` (any currency when undefined), of request id `rid` when given. */
function givenBack(client: ClientState, currency: string | undefined, rid?: string): Refund[] {
  return client.refunds.filter((refund) => refund.gateway && refund.state === 'applied' && (currency === undefined || refund.currency === currency) && (rid === undefined || refund.rid === rid));
}

const named = (refunds: readonly Refund[]): string => refunds.map((refund) => refund.label).join(', ');

/**
 * Why a balance is `missing` units below the model's: the prices of requests the gateway answered 502 or 504 itself
 * were not given back (CR-15.3); undefined when no such give-back explains it.
 */
export function giveBackMissing(client: ClientState, o: Observation, missing: number, said: string, balance: number): Step | undefined {
  if (missing <= 0 || missing > 10_000_000) return undefined;
  const given = givenBack(client, o.currency);
  const count = fewestPrices(missing, given.map((refund) => refund.units));
  if (count === undefined) return undefined;
  const prices = count === 1 ? 'a price' : `${count} prices`;
  return violation(
    ['CR-15.3'],
    `${o.label}: ${said}, ${missing} units below the balance ${balance} less the price ${o.price}: ${prices} of ${named(given)} never came back. A gateway that answers 502 or 504 itself, its upstream giving no answer, gives the deducted price back exactly once`,
    KEPT_PRICE_RANK - count,
  );
}

/** An insufficient-credits challenge that only a give-back that never landed explains (CR-15.3); undefined otherwise. */
export function giveBackMissingForChallenge(client: ClientState, o: Observation, balance: number): Step | undefined {
  const given = givenBack(client, o.currency);
  const units = given.reduce((sum, refund) => sum + refund.units, 0);
  if (given.length === 0 || balance - units >= o.price) return undefined;
  return violation(
    ['CR-15.3'],
    `${o.label}: answered the insufficient-credits challenge, but the balance ${balance} covers the price ${o.price} with the prices of ${named(given)} back. A gateway that answers 502 or 504 itself, its upstream giving no answer, gives the deducted price back exactly once`,
    KEPT_PRICE_RANK,
  );
}

/**
 * An answer that treats request id `o.rid` as still kept with the deduction a gateway gave back (CR-15.3, CR-6.9):
 * served free as that deduction's repeat, or refused as if the repeat of the retry that followed had been used up;
 * undefined when the id was never given back.
 */
export function giveBackKeptId(client: ClientState, o: Observation, said: string): Step | undefined {
  if (o.rid === undefined) return undefined;
  const given = givenBack(client, undefined, o.rid);
  if (given.length === 0) return undefined;
  return violation(
    ['CR-15.3'],
    `${o.label}: ${said}, as if request id ${o.rid} were still kept with the deduction of ${named(given)}, answered 502 or 504 by the gateway itself. A gateway whose upstream gave no answer gives the deducted price back exactly once, and the request id with it: the next request with the id is a new deduction, and only the one after it its repeat`,
    KEPT_PRICE_RANK,
  );
}
