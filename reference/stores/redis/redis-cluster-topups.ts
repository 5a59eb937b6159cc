// The Redis store's top-ups, reversals and credit checks on a Redis Cluster: a PaymentIntent step and a client step each (see redis-cluster-scripts.ts for the invariants).
import type { Currency, TopUpCredit, TopUpCreditResult, TopUpReversal, TopUpReversalResult } from '../store.ts';
import { APPLY_CREDIT, BALANCE, CLAIM_CREDIT, RECORD_REVERSAL, SETTLE_REVERSAL } from './redis-cluster-scripts.ts';
import type { ClusterKeys } from './redis-keys.ts';
import { LuaScript, type RedisConnection } from './redis-lua.ts';
import { asArray, toCurrency, toSafeInteger, toText } from './redis-replies.ts';
import { StoreIdentityError } from '../store-identity.ts';

export const CLUSTER_SCRIPTS = {
  claimCredit: new LuaScript(CLAIM_CREDIT),
  applyCredit: new LuaScript(APPLY_CREDIT),
  recordReversal: new LuaScript(RECORD_REVERSAL),
  settleReversal: new LuaScript(SETTLE_REVERSAL),
  balance: new LuaScript(BALANCE),
};

/** What the cluster steps need of the backend. */
interface ClusterTopUpContext {
  keys: ClusterKeys;
  ttl: string;
  /** append_log's '<ttl seconds>:<max entries>'. */
  logPolicy: string;
  legacyCurrency(): Promise<Currency>;
  run(script: LuaScript, keys: string[], args: string[]): Promise<unknown>;
  connection: RedisConnection;
}

/** A reply of text values. */
const texts = (reply: unknown, name: string): string[] => asArray(reply, name).map((value) => toText(value, name));

/** creditTopUp, reverseTopUp and hasCredit in two single-slot steps each. */
export class ClusterTopUps {
  readonly #c: ClusterTopUpContext;

  constructor(context: ClusterTopUpContext) {
    this.#c = context;
  }

  /**
   * With `storeId`, first reads the store id key and refuses ({@link StoreIdentityError}) unless it holds that id. The
   * key lives in another hash slot than the client's and the PaymentIntent's, so no script can check it with the credit:
   * a reset between this read and the two steps is not seen (documented in docs/money-safety.md).
   */
  async creditTopUp({ clientId, currency, amount, paymentIntentId, storeId }: TopUpCredit, recordId: string | undefined): Promise<TopUpCreditResult> {
    const { keys, ttl, logPolicy, run, connection } = this.#c;
    const legacy = await this.#c.legacyCurrency();
    if (storeId !== undefined && (await connection.send(keys.storeId(), ['GET', keys.storeId()])) !== storeId) {
      throw new StoreIdentityError('RedisStore', storeId);
    }
    const claim = await run(CLUSTER_SCRIPTS.claimCredit, [keys.credited(paymentIntentId), keys.reversals(paymentIntentId)], [clientId, currency, String(amount), ttl]);
    const [, owner = '', ownerCurrency = '', ownerAmount = '', total = '0'] = texts(claim, 'creditTopUp claim');
    // The claim's client gets the credit, whoever asks (an earlier call may have claimed it and died before applying).
    const own = owner === clientId;
    const applied = await run(
      CLUSTER_SCRIPTS.applyCredit,
      [keys.client(owner), keys.credit(owner, paymentIntentId), keys.log(owner)],
      [ownerCurrency, ownerAmount, total, new Date().toISOString(), ttl, recordId === undefined ? '0' : '1', recordId ?? '', paymentIntentId, owner, legacy, own ? currency : ownerCurrency, logPolicy],
    );
    const [credited, balance] = texts(applied, 'creditTopUp');
    if (own) return { credited: credited === '1', balance: toSafeInteger(balance, 'balance') };
    // Another client holds the claim: this call credits nothing to its own client; answer that client's balance.
    const balanceOfCaller = await run(CLUSTER_SCRIPTS.balance, [keys.client(clientId)], [currency, legacy]);
    return { credited: false, balance: toSafeInteger(balanceOfCaller, 'balance') };
  }

  async reverseTopUp({ paymentIntentId, key, amount }: TopUpReversal): Promise<TopUpReversalResult> {
    const { keys, ttl, run } = this.#c;
    const legacy = await this.#c.legacyCurrency();
    const recorded = await run(CLUSTER_SCRIPTS.recordReversal, [keys.reversals(paymentIntentId), keys.credited(paymentIntentId)], [key, String(amount), ttl]);
    const [changed, total = '0', owner] = texts(recorded, 'reverseTopUp');
    const none = { changed: changed === '1', taken: 0, clientId: null, currency: null, balance: null };
    if (owner === undefined) return none;
    const settled = await run(CLUSTER_SCRIPTS.settleReversal, [keys.client(owner), keys.credit(owner, paymentIntentId)], [total, ttl, legacy]);
    const [applied, taken, currency = '', balance] = texts(settled, 'reverseTopUp settle');
    if (applied !== '1') return none;
    return {
      changed: changed === '1',
      taken: toSafeInteger(taken, 'taken'),
      clientId: owner,
      currency: toCurrency(currency, 'credited currency'),
      balance: toSafeInteger(balance, 'balance'),
    };
  }

  /** True when the PaymentIntent is claimed and its claimed client's credit is applied. */
  async hasCredit(paymentIntentId: string): Promise<boolean> {
    const { keys, connection } = this.#c;
    const credited = keys.credited(paymentIntentId);
    const owner = await connection.send(credited, ['HGET', credited, 'client']);
    if (owner === null || owner === undefined) return false;
    const credit = keys.credit(toText(owner, 'credited client'), paymentIntentId);
    return (await connection.send(credit, ['HEXISTS', credit, 'amount'])) === 1;
  }
}
