// The cucumber World: one scenario's view of the target, the processor, the profile and the cards it created.
import { randomBytes } from 'node:crypto';
import { setWorldConstructor, World, type IWorldOptions } from '@cucumber/cucumber';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { encode, type Encoding } from './base64-json.ts';
import { Capabilities } from './capabilities.ts';
import { GatewayView } from './gateway.ts';
import type { CrowdClient } from './crowd.ts';
import { answerOf, type Exchange } from './exchange.ts';
import { Expectations, type EffectiveRoute } from './expectations.ts';
import type { FuzzReport } from './fuzz/run.ts';
import { TargetClient } from './http-client.ts';
import { RequirementFailure, type CheckIds } from './check.ts';
import { expectServed, servedForSetUp, type PaymentResponse } from './judge.ts';
import type { HeaderValue } from './malformed.ts';
import type { Declarations } from './declarations.ts';
import type { Level } from './levels.ts';
import { checkParameters, loadProfile, type Profile, type WorldParameters } from './parameters.ts';
import { EXCLUSIVE_TAGS } from './parallel.ts';
import { ProcessorView } from './processor.ts';
import { requestLine, routeKeyOf } from './request-line.ts';
import { profileKeyOf } from './route-patterns.ts';
import { Robustness } from './robustness.ts';
import type { CorpusVariant } from './routing-corpus.ts';

/** A card payment method the scenario created at the processor. */
export interface Card {
  number: string;
  paymentMethodId: string;
  fingerprint: string;
  /** The clientId the spec derives from the fingerprint (CR-7.3). */
  clientId: string;
}

/** How a scenario names its cards. */
export type CardRole = 'the card' | 'the other card' | "the card's second payment method";

/** Options of one request. */
interface SendOptions {
  payment?: HeaderValue;
  /** Header name as written on the wire (default `payment`). */
  headerName?: string;
  /** Send the request target in absolute form (`http://host/path`). */
  absolute?: boolean;
  /** Record the journal position first, so processor steps judge this request (default true). */
  mark?: boolean;
  /** Keep the exchange for `last` and the transcript (default true). */
  record?: boolean;
  /** Set-up of a Given step, shown on one line in the transcript. */
  setup?: boolean;
  /** This request's timeout in ms (default: the run's `requestTimeoutMs`). */
  timeoutMs?: number;
  /** More header fields, as written on the wire (a `conformance-request-id` among them is sent instead of a new one). */
  headers?: Readonly<Record<string, string>>;
}

/** The scenario's world; the runner passes {@link WorldParameters} as cucumber `worldParameters`. */
export class ConformanceWorld extends World<WorldParameters> {
  readonly profile: Profile;
  /** What the target declares about itself. */
  readonly declarations: Declarations;
  /** The highest level this run judges. */
  readonly runLevel: Level;
  readonly expect: Expectations;
  readonly target: TargetClient;
  processor!: ProcessorView;
  readonly cards = new Map<CardRole, Card>();
  /** Lines added to the failure transcript (fault warnings, fuzz seed…). */
  readonly notes: string[] = [];
  scenarioName = '';
  tags: string[] = [];
  /** Answers of the last batch of concurrent requests. */
  batch: Exchange[] = [];
  /** The routing corpus's variants the scenario sent (CR-4.9). */
  corpus: CorpusVariant[] = [];
  /** The report of the scenario's fuzz run, once it ran. */
  fuzzReport?: FuzzReport;
  /** The many clients of a scenario that spends with all of them at once (harness/world/crowd.ts). */
  crowd: CrowdClient[] = [];
  #robustness?: Robustness;
  #capabilities?: Capabilities;
  #gateway?: GatewayView;
  #last?: Exchange;
  #unknownClientId = randomBytes(32).toString('hex');
  #unknownPaymentMethod = `pm_unknown${randomBytes(12).toString('hex')}`;

  constructor(options: IWorldOptions<WorldParameters>) {
    super(options);
    const parameters = checkParameters(options.parameters);
    this.profile = loadProfile(parameters.profilePath);
    this.declarations = parameters.declarations ?? {};
    this.runLevel = parameters.level ?? 'strict';
    this.expect = new Expectations(this.profile, this.declarations);
    this.target = new TargetClient(parameters.targetUrl, parameters.requestTimeoutMs ?? 15_000);
  }

  /** Called by the Before hook. */
  async start(name: string, tags: string[]): Promise<void> {
    this.scenarioName = name;
    this.tags = tags;
    const serial = (process.env.CUCUMBER_TOTAL_WORKERS ?? '1') === '1';
    this.processor = new ProcessorView(this.parameters.emulatorUrl, serial || tags.some((tag) => EXCLUSIVE_TAGS.has(tag)));
    await this.processor.start(this.profile.stripeSecretKey);
  }

  /** The last judged exchange. */
  get last(): Exchange {
    if (!this.#last) throw new Error('no request was sent yet in this scenario');
    return this.#last;
  }

  /** The scenario's robustness view (§14): its webhook deliveries and the PaymentIntent it talks about; made on first use. */
  get robustness(): Robustness {
    this.#robustness ??= new Robustness(this);
    return this.#robustness;
  }

  /** The scenario's capability view: the store faults it armed and the records it noted; made on first use. */
  get capabilities(): Capabilities {
    this.#capabilities ??= new Capabilities(this);
    return this.#capabilities;
  }

  /** The scenario's view of the kit's controlled upstream (capability `gateway`): its faults and what reached it; made on first use. */
  get gateway(): GatewayView {
    this.#gateway ??= new GatewayView(this);
    return this.#gateway;
  }

  /** The URL of the target's webhook endpoint: its origin and the profile's `webhookPath`. */
  get webhookUrl(): string {
    return `${this.parameters.targetUrl.replace(/\/$/, '')}${this.profile.webhookPath ?? '/webhooks/stripe'}`;
  }

  /** The profile's gated route for a route key or a request key, defaults applied. */
  route(key: string): EffectiveRoute {
    return this.expect.route(key);
  }

  /** The key whose handler answers an exchange: its gated route's profile key (a pattern for a pattern route), else its request key. */
  handlerKey(exchange: Exchange): string {
    const key = routeKeyOf(exchange);
    return profileKeyOf(this.expect.routeKeys, key) ?? key;
  }

  /** A card the scenario created; fails with a hint when it has none. */
  card(role: CardRole = 'the card'): Card {
    const card = this.cards.get(role);
    if (!card) throw new Error(`the scenario has no "${role}": start it with "Given a new card"`);
    return card;
  }

  /** Creates a payment method for `number` (default: a never-seen card) and remembers it as `role`. */
  async addCard(role: CardRole, given?: string): Promise<Card> {
    // A number the scenario chose (a documented test card) is shared with other scenarios: its clientId identifies none of them.
    const shared = given !== undefined && ![...this.cards.values()].some((card) => card.number === given);
    const card = await this.createCard(given, shared);
    this.cards.set(role, card);
    return card;
  }

  /** Creates a payment method for `number` (default: a never-seen card), the scenario's; `shared`: its clientId is not only this scenario's. */
  async createCard(given?: string, shared = false): Promise<Card> {
    const number = given ?? uniqueCardNumber();
    const created = await createPaymentMethod(
      this.parameters.emulatorUrl,
      { publishable: this.profile.stripePublishableKey, secret: this.profile.stripeSecretKey },
      number,
    );
    if (created.retrieved) await this.processor.excludeHarnessCall(`/v1/payment_methods/${created.paymentMethodId}`);
    const card: Card = { number, ...created, clientId: this.expect.clientIdOf(created.fingerprint) };
    this.processor.markers.add(card.paymentMethodId);
    if (!shared) this.processor.markers.add(card.clientId);
    return card;
  }

  /**
   * Fills the placeholders of a payload: `$card`, `$otherCard`, `$secondPaymentMethod` (payment method ids), `$clientId`,
   * `$otherClientId`, `$upperClientId`, `$shortClientId` (the card's clientId uppercased / without its last digit),
   * `$unknownClientId` (64 hex nobody paid for) and `$unknownPaymentMethod` (a payment method id the processor never issued).
   */
  fill(template: string): string {
    const values: Record<string, () => string> = {
      card: () => this.card('the card').paymentMethodId,
      otherCard: () => this.card('the other card').paymentMethodId,
      secondPaymentMethod: () => this.card("the card's second payment method").paymentMethodId,
      clientId: () => this.card('the card').clientId,
      otherClientId: () => this.card('the other card').clientId,
      upperClientId: () => this.card('the card').clientId.toUpperCase(),
      shortClientId: () => this.card('the card').clientId.slice(0, -1),
      unknownClientId: () => this.#unknownClientId,
      unknownPaymentMethod: () => this.#unknownPaymentMethod,
    };
    return template.replace(/\$([A-Za-z]+)/g, (placeholder: string, name: string) => values[name]?.() ?? placeholder);
  }

  /** Sends one request to the target. */
  async send(line: string, options: SendOptions = {}): Promise<Exchange> {
    const { method, target } = requestLine(line);
    if (options.mark !== false) await this.processor.markRequest();
    const headers = { ...options.headers, ...(options.payment === undefined ? {} : { [options.headerName ?? 'payment']: options.payment }) };
    const exchange = await this.target.send({ method, target: options.absolute ? `${this.target.origin}${target}` : target, headers }, options);
    await this.processor.afterAnswer();
    if (options.record !== false) this.#last = exchange;
    return exchange;
  }

  /** Sends `payload` (a JSON text, placeholders filled) base64-encoded in the `payment` header. */
  sendPayload(line: string, payload: string, options: SendOptions & { encoding?: Encoding } = {}): Promise<Exchange> {
    const json = this.fill(payload);
    for (const id of json.match(/pm_[A-Za-z0-9_]+/g) ?? []) this.processor.markers.add(id);
    return this.send(line, { ...options, payment: encode(json, options.encoding) });
  }

  /** The JSON text of a new payment with the card (the top-up member only when given). */
  paymentJson(role: CardRole, topUpAmount?: number, extra: Record<string, unknown> = {}): string {
    return JSON.stringify({ paymentMethodId: this.card(role).paymentMethodId, ...(topUpAmount === undefined ? {} : { topUpAmount }), ...extra });
  }

  /** Pays for `line` with a card; `mixed alphabets` adds an ignored member so the encoding has both `+` and `/`. */
  pay(line: string, role: CardRole, options: SendOptions & { topUpAmount?: number; encoding?: Encoding } = {}): Promise<Exchange> {
    let json = this.paymentJson(role, options.topUpAmount);
    for (let pad = 0; options.encoding === 'mixed alphabets' && !/(?=.*\+)(?=.*\/)/.test(encode(json)); pad++) {
      json = this.paymentJson(role, options.topUpAmount, { note: `${'x'.repeat(pad % 3)}${'?>'.repeat(3 + Math.floor(pad / 3))}` });
    }
    return this.send(line, { ...options, payment: encode(json, options.encoding) });
  }

  /** Spends from the balance of a card's client (`{"clientId": …}`). */
  spend(line: string, role: CardRole = 'the card', options: SendOptions = {}): Promise<Exchange> {
    return this.send(line, { ...options, payment: encode(JSON.stringify({ clientId: this.card(role).clientId })) });
  }

  /** The decoded payment-response of the last answer, which must be a served request. */
  served(exchange: Exchange = this.last, outcome?: CheckIds): PaymentResponse {
    const response = expectServed(exchange, this.handlerKey(exchange), outcome);
    this.processor.markers.add(response.clientId);
    return response;
  }

  /** What a set-up reads of an answer it needs served, its shape left to the scenario's checks (`servedForSetUp`). */
  servedForSetUp(exchange: Exchange, outcome: CheckIds): PaymentResponse {
    const response = servedForSetUp(exchange, this.handlerKey(exchange), outcome);
    this.processor.markers.add(response.clientId);
    return response;
  }

  /**
   * Gives a new card's client exactly `balance` units in the currency of the route with the smallest minimum (with
   * `inEveryCurrency`, in each currency of the profile's routes): per currency, one top-up on the route of that
   * currency with the smallest minimum, then spending on its most expensive route (a handful of requests).
   */
  async fundClient(balance: number, inEveryCurrency = false): Promise<void> {
    await this.addCard('the card');
    const routes = this.expect.routeKeys.map((key) => this.route(key));
    const cheapest = routes.reduce((a, b) => (b.minTopUp < a.minTopUp ? b : a));
    const currencies = inEveryCurrency ? [...new Set(routes.map((route) => route.currency))] : [cheapest.currency];
    // A balance pays only for routes of its currency (CR-6.8): each currency is funded on its own routes.
    const funded: string[] = [];
    for (const currency of currencies) {
      await this.#fundCurrency(balance, routes.filter((route) => route.currency === currency), funded);
      funded.push(currency);
    }
  }

  /** {@link fundClient} in one currency, whose routes are `routes`, after `funded` currencies were funded with `balance` each. */
  async #fundCurrency(balance: number, routes: EffectiveRoute[], funded: readonly string[]): Promise<void> {
    const payRoute = routes.reduce((a, b) => (b.minTopUp < a.minTopUp ? b : a));
    const spendRoute = routes.reduce((a, b) => (b.amount > a.amount ? b : a));
    const spends = Math.max(0, Math.ceil((payRoute.minTopUp - balance - payRoute.amount) / spendRoute.amount));
    const topUpAmount = balance + payRoute.amount + spends * spendRoute.amount;
    const paid = this.servedForSetUp(await this.pay(payRoute.key, 'the card', { topUpAmount, setup: true }), 'CR-7.13');
    const expected = topUpAmount - payRoute.amount;
    if (paid.creditsRemaining !== expected) {
      const setup = `setting up a balance: paying ${topUpAmount} on ${payRoute.key} (${payRoute.currency}) left ${paid.creditsRemaining}, expected ${expected}`;
      // The balances funded before in other currencies showing up here (added to the top-up, or paying the price
      // without a charge): one balance for every currency.
      const before = funded.length * balance;
      const shared = funded.length > 0 && (paid.creditsRemaining === expected + before || (paid.chargeId === undefined && paid.creditsRemaining === before - payRoute.amount));
      throw shared
        ? new RequirementFailure('CR-6.8', `${setup}: the ${balance} units funded before in ${funded.join(', ')} count in ${payRoute.currency} too, but a balance pays only for routes of its currency`)
        : new RequirementFailure('CR-7.13', `${setup}: creditsRemaining after a first payment is the top-up minus the price`);
    }
    let remaining = paid.creditsRemaining;
    for (let i = 0; i < spends; i++) remaining = this.servedForSetUp(await this.spend(spendRoute.key, 'the card', { mark: false, setup: true }), 'CR-6.2').creditsRemaining;
    if (remaining !== balance) throw new RequirementFailure('CR-6.2', `setting up a balance of ${balance} ended at ${remaining}: each spend takes exactly the price`);
  }

  /** The answer of the last exchange (throws on a transport error). */
  get answer() {
    return answerOf(this.last);
  }
}

setWorldConstructor(ConformanceWorld);
