// Every check of the kit names its requirement IDs: the step wrapper `judges` (sync and async bodies, candidates resolved
// against the scenario's tags, levels, cucumber's arity), and every step of harness/steps registered through it.
import { AssertionError } from 'node:assert';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readRequirements } from '../report/spec-requirements.ts';
import {
  beginChecks,
  blamedIds,
  checkFor,
  checksFor,
  declaredIds,
  endChecks,
  firstOf,
  judges,
  RequirementFailure,
  resolveId,
  STEP_IDS,
  type CheckIds,
} from './check.ts';
import type { Answer, Exchange } from './exchange.ts';
import { expectPaymentError, expectServed, servedForSetUp } from './judge.ts';
import { paymentErrorIds, SERVED } from './outcome-ids.ts';

/** Step registrations seen by the mocked cucumber: keyword, pattern and the function cucumber would call. */
const registered = vi.hoisted(() => [] as Array<{ keyword: string; pattern: unknown; code: unknown }>);

vi.mock('@cucumber/cucumber', async (importOriginal) => {
  const actual = await importOriginal<Record<string, unknown>>();
  const record = (keyword: string) => (pattern: unknown, options: unknown, code?: unknown) => {
    registered.push({ keyword, pattern, code: code ?? options });
  };
  const ignore = () => undefined;
  return {
    ...actual,
    Given: record('Given'),
    When: record('When'),
    Then: record('Then'),
    defineStep: record('defineStep'),
    defineParameterType: ignore,
    Before: ignore,
    After: ignore,
    BeforeAll: ignore,
    AfterAll: ignore,
    setWorldConstructor: ignore,
    setDefaultTimeout: ignore,
  };
});

const KNOWN = new Set(readRequirements().map((requirement) => requirement.id));
const HARNESS = fileURLToPath(new URL('..', import.meta.url));
const STEPS = join(HARNESS, 'steps');
const CLIENT = join(HARNESS, 'client');
const CLIENT_STEPS = join(CLIENT, 'steps');
/** The client steps that script the kit's server: they judge nothing and register with cucumber directly (their failure is the kit's own). */
const CLIENT_SCRIPT_STEPS = join(CLIENT_STEPS, 'script.steps.ts');

/** Runs a wrapped step as cucumber does: `this` is the World, then the step's arguments. */
const world = (...tags: string[]) => ({ tags });
async function failureOf(run: () => unknown): Promise<RequirementFailure> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(RequirementFailure);
    return error as RequirementFailure;
  }
  throw new Error('the step did not fail');
}

afterEach(() => {
  endChecks();
});

describe('judges: a step body as the check of one requirement', () => {
  it('turns a plain assertion of a sync body into a failure naming the declared ID', async () => {
    const step = judges('CR-5.1', () => {
      assert.equal(1, 2, 'one is two');
    });
    const failure = await failureOf(() => step.call(world()));
    expect(failure.ids).toEqual(['CR-5.1']);
    expect(failure.message).toMatch(/^\[CR-5\.1\] one is two/);
    expect(blamedIds(failure.message)).toEqual(['CR-5.1']);
    expect(failure.cause).toBeInstanceOf(AssertionError);
  });

  it('turns a rejection of an async body into a failure naming the declared ID', async () => {
    const step = judges('CR-7.14', async () => {
      await Promise.resolve();
      throw new Error('amount 500, expected 501');
    });
    const failure = await failureOf(() => step.call(world()));
    expect(failure.ids).toEqual(['CR-7.14']);
    expect(failure.message).toBe('[CR-7.14] amount 500, expected 501');
  });

  it('passes `this`, the arguments and the result through', async () => {
    const seen: unknown[] = [];
    const sync = judges('CR-4.6', function (this: { tags: string[] }, a: number, b: string) {
      seen.push(this.tags, a, b);
      return 'done';
    });
    expect(sync.call(world('@CR-4.6'), 1, 'x')).toBe('done');
    const async = judges('CR-4.6', async function (this: { tags: string[] }, a: number) {
      seen.push(a);
      return 7;
    });
    await expect(async.call(world(), 2)).resolves.toBe(7);
    expect(seen).toEqual([['@CR-4.6'], 1, 'x', 2]);
  });

  it("keeps the body's length, which cucumber checks against the step's parameters", () => {
    expect(judges('CR-4.6', () => {}).length).toBe(0);
    expect(judges('CR-4.6', (_a: number) => {}).length).toBe(1);
    expect(judges('CR-4.6', async (_a: number, _b: string, _table: unknown) => {}).length).toBe(3);
    expect(judges('CR-4.6', (_a: number) => {}, { setup: true }).length).toBe(1);
  });

  it('lets a failure nested inside keep its own ID', async () => {
    const direct = judges('CR-4.6', () => {
      throw new RequirementFailure('CR-3.2', 'not base64');
    });
    expect((await failureOf(() => direct.call(world()))).ids).toEqual(['CR-3.2']);
    const nested = judges('CR-4.6', async () => {
      checkFor('CR-5.1', () => assert.fail('no payment-required'));
    });
    expect((await failureOf(() => nested.call(world()))).ids).toEqual(['CR-5.1']);
  });

  it('refuses a step that names no ID, several, or something that is not one', () => {
    expect(() => judges('7.14', () => {})).toThrow(/not a requirement ID/);
    expect(() => judges(['CR-7.14', 'CR-1.3'] as unknown as string, () => {})).toThrow(/not a requirement ID/);
    expect(() => checkFor(['CR-7.14', 'CR-1.3'] as unknown as string, () => {})).toThrow(/not a requirement ID/);
    expect(() => firstOf([], 'CR-4.6')).toThrow(/at least one/);
    expect(() => firstOf(['CR-4.6'], '')).toThrow(/not a requirement ID/);
  });

  it('marks the wrapper with its declared IDs', () => {
    const ids = firstOf(['CR-7.7', 'CR-13.24'], 'CR-8.7');
    expect(judges(ids, () => {})[STEP_IDS]).toBe(ids);
    expect(declaredIds(ids)).toEqual(['CR-7.7', 'CR-13.24', 'CR-8.7']);
  });
});

describe('premises: a shared step names the first of its premises the scenario is tagged with, else its own', () => {
  const message = firstOf(['CR-7.7', 'CR-13.24', 'CR-13.35'], 'CR-8.7');

  it('resolves against the tags of the World the step runs in, to one requirement', async () => {
    const step = judges(message, () => {
      assert.fail('the error message');
    });
    expect((await failureOf(() => step.call(world('@CR-7.7', '@CR-8.3')))).ids).toEqual(['CR-7.7']);
    expect((await failureOf(() => step.call(world('@CR-13.24', '@shared-card')))).ids).toEqual(['CR-13.24']);
    expect((await failureOf(() => step.call(world('@CR-10.5')))).ids).toEqual(['CR-8.7']);
    expect((await failureOf(() => step.call(world())))).toMatchObject({ ids: ['CR-8.7'] });
  });

  it("follows the step's order, not the scenario's tag order or the levels", () => {
    expect(resolveId(message, ['@CR-13.35', '@CR-13.24'])).toBe('CR-13.24');
    expect(resolveId(message, ['@CR-13.24', '@CR-7.7'])).toBe('CR-7.7');
    expect(resolveId(firstOf(['CR-13.35', 'CR-7.7'], 'CR-8.7'), ['@CR-7.7', '@CR-13.35'])).toBe('CR-13.35');
  });

  it('resolves the premises of a checkFor inside a step against the same scenario', async () => {
    const step = judges('CR-4.6', () => {
      checkFor(message, () => assert.fail('nested'));
    });
    expect((await failureOf(() => step.call(world('@CR-13.35')))).ids).toEqual(['CR-13.35']);
  });

  it('names the code CR-3.6 gives, never CR-8.11, for a payload that is not an object: at the wire level a 402 that fails closed is all that is asked', () => {
    expect(resolveId(paymentErrorIds('invalid_payment'), ['@CR-8.11', '@CR-3.6', '@CR-13.19'])).toBe('CR-3.6');
    expect(declaredIds(paymentErrorIds('invalid_payment'))).not.toContain('CR-8.11');
  });
});

describe('levels of a wrapped step', () => {
  const strictStep = judges('CR-13.24', () => {
    assert.fail('strict');
  });

  it('defers a Then failure above the scenario level to its end, and keeps going', async () => {
    const context = beginChecks('strict', 'wire');
    await strictStep.call(world('@CR-7.7', '@CR-13.24'));
    expect(context.deferred.map((failure) => failure.ids)).toEqual([['CR-13.24']]);
  });

  it('does not make a check above the run level: no failure, and its ID is neither checked nor failed', async () => {
    const context = beginChecks('wire', 'wire');
    await strictStep.call(world('@CR-7.7', '@CR-13.24'));
    checkFor('CR-13.19', () => assert.fail('not made'));
    expect(context.deferred).toEqual([]);
    expect([...context.notJudged].sort()).toEqual(['CR-13.19', 'CR-13.24']);
    expect([...context.checked]).toEqual([]);
  });

  it('drops a failure above the run level that a step raises itself (an outcome a strict premise demands)', async () => {
    const context = beginChecks('wire', 'wire');
    const step = judges('CR-8.11', () => {
      throw new RequirementFailure('CR-3.6', 'expected the payment error invalid_payment, got the plain challenge');
    });
    await step.call(world('@CR-8.11', '@CR-3.6'));
    expect(context.deferred).toEqual([]);
    expect(context.notJudged.has('CR-3.6')).toBe(true);
  });

  it('throws a set-up failure at once, whatever its level', async () => {
    beginChecks('wire', 'wire');
    const setup = judges('CR-13.24', () => {
      assert.fail('the set-up broke');
    }, { setup: true });
    expect((await failureOf(() => setup.call(world()))).ids).toEqual(['CR-13.24']);
  });

  it('throws a failure at the scenario level', async () => {
    beginChecks('strict', 'strict');
    expect((await failureOf(() => strictStep.call(world()))).ids).toEqual(['CR-13.24']);
  });

  it('records the requirements whose checks ran, passed or failed, for the report\'s "not reached"', async () => {
    const context = beginChecks('strict', 'wire');
    checkFor('CR-5.1', () => {});
    await judges('CR-6.2', () => {}).call(world());
    await strictStep.call(world());
    expect([...context.checked].sort()).toEqual(['CR-13.24', 'CR-5.1', 'CR-6.2']);
  });
});

describe('checksFor: one observation, a check of each requirement that demands it', () => {
  it('makes every check and throws their failures together, one line each', async () => {
    beginChecks('strict', 'wire');
    const failure = await failureOf(() =>
      checksFor([
        ['CR-7.14', () => assert.fail('amount 500')],
        ['CR-1.3', () => assert.fail('amount 500')],
        ['CR-7.15', () => {}],
      ]),
    );
    expect(failure.ids).toEqual(['CR-7.14', 'CR-1.3']);
    expect(failure.message.split('\n').map((line) => blamedIds(line))).toEqual([['CR-7.14'], ['CR-1.3']]);
  });

  it('defers the failures above the scenario level, like checkFor', () => {
    const context = beginChecks('strict', 'wire');
    checksFor([['CR-13.24', () => assert.fail('strict')]]);
    expect(context.deferred.map((failure) => failure.ids)).toEqual([['CR-13.24']]);
  });
});

/** A GET of `target` and its answer. */
function answeredGet(target: string, answer: Answer): Exchange {
  return { request: { method: 'GET', target }, path: target, startedAt: new Date(0).toISOString(), durationMs: 1, answer };
}

/** A 402 payment error answer. */
function paymentError(code: string, message: string): Exchange {
  const body = { success: false, creditsRemaining: 0, clientId: '', error: message, errorCode: code };
  const headers = { 'content-type': 'application/json' };
  return answeredGet('/api/weather', { status: 402, rawHeaders: Object.entries(headers), headers, text: JSON.stringify(body), json: body });
}

describe('judges of an answer name the requirement of what they check', () => {
  it("charges the exact message 'Payment processing failed' to the requirement of the scenario's cause", async () => {
    const step = judges('CR-8.7', function (this: unknown, exchange: Exchange) {
      expectPaymentError(exchange, 'payment_failed', 'Payment processing failed');
    });
    const wrong = paymentError('payment_failed', 'Payment did not succeed. Status: requires_action');
    expect((await failureOf(() => step.call(world('@CR-7.7', '@CR-8.7', '@CR-13.24'), wrong))).ids).toEqual(['CR-7.7']);
    expect((await failureOf(() => step.call(world('@CR-13.24'), wrong))).ids).toEqual(['CR-13.24']);
    expect((await failureOf(() => step.call(world('@CR-13.35'), wrong))).ids).toEqual(['CR-13.35']);
    expect((await failureOf(() => step.call(world('@CR-7.20', '@CR-13.37'), wrong))).ids).toEqual(['CR-13.37']);
  });

  it("charges another expected message to the card error's requirements, and a malformed header's to CR-3.5", async () => {
    const card = judges('CR-8.6', function (this: unknown, exchange: Exchange) {
      expectPaymentError(exchange, 'card_declined', 'Your card was declined.');
    });
    expect((await failureOf(() => card.call(world('@CR-7.20', '@CR-8.6', '@CR-13.24'), paymentError('card_declined', 'declined')))).ids).toEqual(['CR-7.20']);
    expect((await failureOf(() => card.call(world('@CR-8.6'), paymentError('card_declined', 'declined')))).ids).toEqual(['CR-8.6']);
    expect(() => expectPaymentError(paymentError('invalid_payment', 'bad'), 'invalid_payment', 'Malformed payment header')).toThrow(/^\[CR-3\.5\] the error message/);
  });

  it('leaves a wrong outcome to the caller, or to the IDs it passes', async () => {
    const step = judges('CR-6.2', function (this: unknown, exchange: Exchange) {
      expectServed(exchange, 'GET /api/weather');
    });
    expect((await failureOf(() => step.call(world(), paymentError('payment_failed', 'x')))).ids).toEqual(['CR-6.2']);
    expect(() => expectPaymentError(paymentError('payment_failed', 'x'), 'card_declined', undefined, 'CR-8.6')).toThrow(/^\[CR-8\.6\] expected the payment error card_declined/);
  });

  it('names the premise, not CR-4.6, for a handler that answered without payment-response: a HEAD or a pattern route the wire level leaves free', async () => {
    const step = judges(SERVED, function (this: unknown, exchange: Exchange) {
      expectServed(exchange, 'GET /api/users/:id', SERVED);
    });
    const body = { route: 'GET /api/users/:id' };
    const free = answeredGet('/api/users/42', { status: 200, rawHeaders: [], headers: {}, text: JSON.stringify(body), json: body });
    const head: Exchange = { ...free, request: { method: 'HEAD', target: '/api/users/42' }, answer: { status: 200, rawHeaders: [], headers: {}, text: '', json: undefined } };
    expect((await failureOf(() => step.call(world('@CR-4.12', '@CR-4.13', '@CR-13.42'), free))).ids).toEqual(['CR-4.13']);
    expect((await failureOf(() => step.call(world('@CR-4.8'), head))).ids).toEqual(['CR-4.8']);
    // At the wire level that check is not made: no failure.
    const context = beginChecks('wire', 'wire');
    await step.call(world('@CR-4.8'), head);
    expect(context.deferred).toEqual([]);
    expect(context.notJudged.has('CR-4.8')).toBe(true);
  });

  it("leaves the shape of a set-up's answer to the scenario's checks: it reads the balance, and fails its outcome only when it cannot", () => {
    const body = { route: 'GET /api/weather' };
    const paid = (response: Record<string, unknown>): Exchange => ({
      ...paymentError('x', 'y'),
      answer: { status: 200, rawHeaders: [], headers: {}, text: JSON.stringify(body), json: body, paymentResponse: { ok: true, value: response } },
    });
    const clientId = 'c'.repeat(64);
    expect(servedForSetUp(paid({ success: true, creditsRemaining: '49500', clientId }), 'GET /api/weather', 'CR-7.13')).toEqual({ success: true, creditsRemaining: 49_500, clientId });
    expect(() => expectServed(paid({ success: true, creditsRemaining: '49500', clientId }), 'GET /api/weather')).toThrow(/^\[CR-6\.2\] the answer breaks its JSON Schema/);
    expect(() => servedForSetUp(paid({ success: true, creditsRemaining: 'lots', clientId }), 'GET /api/weather', 'CR-7.13')).toThrow(/^\[CR-7\.13\] the set-up cannot read the balance/);
    expect(() => servedForSetUp(paymentError('card_declined', 'no'), 'GET /api/weather', 'CR-7.13')).toThrow(/^\[CR-7\.13\] the handler of GET \/api\/weather should have run/);
  });

  it('names CR-4.6 for a request that got no answer', () => {
    const exchange: Exchange = { ...paymentError('x', 'y'), answer: undefined, error: 'ECONNRESET' };
    expect(() => expectServed(exchange, 'GET /api/weather')).toThrow(/^\[CR-4\.6\] GET \/api\/weather got no answer: ECONNRESET/);
  });
});

/** The files of a folder (recursively) that are support code: TypeScript, not tests. */
const supportFiles = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(folder, file));

/** Names a file imports from '@cucumber/cucumber'. */
function cucumberImports(text: string): string[] {
  const names: string[] = [];
  for (const [, list = ''] of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@cucumber\/cucumber'/g)) {
    names.push(...list.split(',').map((name) => name.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0] ?? '').filter(Boolean));
  }
  return names;
}

describe('every step of the kit names its requirement IDs', () => {
  it('registers steps only through harness/steps/define.ts, never with Given/When/Then of @cucumber/cucumber (the client\'s scripting steps excepted)', () => {
    const offenders = [...supportFiles(STEPS), ...supportFiles(join(HARNESS, 'world')), ...supportFiles(CLIENT)]
      .filter((file) => !file.endsWith(join('steps', 'define.ts')) && file !== CLIENT_SCRIPT_STEPS)
      .flatMap((file) => {
        const names = cucumberImports(readFileSync(file, 'utf8')).filter((name) => ['Given', 'When', 'Then', 'defineStep'].includes(name));
        return names.length === 0 ? [] : [`${file}: ${names.join(', ')}`];
      });
    expect(offenders).toEqual([]);
  });

  it("lets the client's scripting steps register only Given steps that judge nothing: no check, no requirement", () => {
    const text = readFileSync(CLIENT_SCRIPT_STEPS, 'utf8');
    expect(cucumberImports(text)).toEqual(['Given']);
    expect(text).not.toMatch(/checkFor|RequirementFailure|'CR-\d+\.\d+'/);
  });

  it('wraps every registration of harness/steps and harness/client/steps with judges, naming requirements of the spec', async () => {
    const files = [...supportFiles(STEPS), ...supportFiles(CLIENT_STEPS).filter((file) => file !== CLIENT_SCRIPT_STEPS)].sort();
    const problems: string[] = [];
    const perFolder = new Map<string, number>();
    for (const file of files) {
      const before = registered.length;
      await import(pathToFileURL(file).href);
      const mine = registered.slice(before);
      const written = readFileSync(file, 'utf8').match(/^\s*(?:Given|When|Then)\(/gm)?.length ?? 0;
      if (!file.endsWith('define.ts') && mine.length !== written) problems.push(`${file}: ${written} Given/When/Then calls, ${mine.length} registrations`);
      for (const { keyword, pattern, code } of mine) {
        const ids = (code as { [STEP_IDS]?: CheckIds } | undefined)?.[STEP_IDS];
        const where = `${file}: ${keyword} ${String(pattern)}`;
        if (ids === undefined) {
          problems.push(`${where}: not wrapped by judges`);
          continue;
        }
        const unknown = declaredIds(ids).filter((id) => !KNOWN.has(id));
        if (unknown.length > 0) problems.push(`${where}: names IDs the spec does not define: ${unknown.join(', ')}`);
      }
      const folder = file.startsWith(CLIENT_STEPS) ? 'client' : 'server';
      perFolder.set(folder, (perFolder.get(folder) ?? 0) + mine.length);
    }
    expect(problems).toEqual([]);
    expect(perFolder.get('server')).toBeGreaterThan(100);
    expect(perFolder.get('client')).toBeGreaterThan(10);
  });

  it('names only requirements of the spec in the checks of harness/world, harness/steps and harness/client', () => {
    const unknown = [...supportFiles(STEPS), ...supportFiles(join(HARNESS, 'world')), ...supportFiles(CLIENT)].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/'(CR-\d+\.\d+)'/g)].map(([, id]) => id ?? '').filter((id) => !KNOWN.has(id)).map((id) => `${file}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  it('never names a list of requirements in one check, step or failure', () => {
    const lists = [...supportFiles(STEPS), ...supportFiles(join(HARNESS, 'world')), ...supportFiles(CLIENT)].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:checkFor|judges|Given|When|Then|new RequirementFailure)\((?:[^()]|\([^()]*\))*?\[\s*'CR-/g)].map((match) => `${file}: ${match[0].slice(0, 80)}`),
    );
    expect(lists).toEqual([]);
  });
});

/**
 * The shared helpers (support code of harness/world and harness/client, not steps) that raise assertions, and whose
 * requirement their failures name: their own (a `checkFor` or a `RequirementFailure` of theirs), or the caller's: a
 * plain assertion, which the step that runs it names (through `judges`). A new helper that raises one is listed here.
 */
const HELPERS: Readonly<Record<string, string>> = {
  'world/capability-judge.ts': "own (CR-8.2, CR-11.7, CR-11.8); a 503 that did not come: the caller's",
  'world/check.ts': 'the check mechanism itself',
  'world/concurrency.ts': "own (CR-6.7); the served answers and challenges of a batch: judge.ts's",
  'world/crowd.ts': 'own (CR-6.2, CR-6.3, CR-7.13)',
  'world/judge.ts': "own (the shape of each outcome); an outcome that did not come: the caller's, or the premise it passes",
  'world/processor-events.ts': 'own (CR-14.2: no webhook endpoint)',
  'world/processor-judge.ts': "the caller's (each processor step names the requirement of what it reads), CR-7.5 for a missing customer",
  'world/robustness.ts': "the caller's (a webhook delivery the step expected acknowledged)",
  'world/routing-corpus-verdicts.ts': 'own (CR-4.8, CR-4.9, CR-4.10)',
  'world/routing-corpus.ts': "the caller's (the corpus step: a balance probe not served)",
  'world/scenario-audit.ts': 'own (the audits: CR-7.13, CR-7.9, CR-7.16, CR-1.1, CR-4.6)',
  'world/schema-check.ts': "own (CR-5.2, CR-5.3, CR-5.6); expectSchemaValid: the caller's",
  'world/serialised-payments.ts': "own (CR-14.7); servedCount: the caller's",
  'world/world.ts': 'own (the set-up balance: CR-6.2, CR-6.8, CR-7.13)',
};

describe('every shared helper that raises an assertion names its requirement or leaves it to its step', () => {
  it('lists every helper of harness/world and harness/client that raises one', () => {
    const raising = [...supportFiles(join(HARNESS, 'world')), ...supportFiles(CLIENT)]
      .filter((file) => !file.startsWith(CLIENT_STEPS))
      .filter((file) => /\bassert(?:\.\w+)?\(|new RequirementFailure\(/.test(readFileSync(file, 'utf8')))
      .map((file) => file.slice(HARNESS.length).replace(/^\//, ''))
      .sort();
    expect(raising).toEqual(Object.keys(HELPERS).sort());
  });

  /** A failure a helper raises inside a step naming `CR-1.1` (a sentinel): its own requirement, or the step's. */
  async function named(helper: () => unknown): Promise<string[]> {
    return (await failureOf(() => judges('CR-1.1', helper).call(world()))).ids as string[];
  }

  it("names one requirement for each failure of the processor's, the records' and the batches' judges", async () => {
    const { expectNoIntent, expectIntentCount, customerOf } = await import('./processor-judge.ts');
    const { expectRecords, expectClientRecord, expectServiceUnavailable } = await import('./capability-judge.ts');
    const { expectCreditsLadder } = await import('./concurrency.ts');
    const { expectOneChargeLadder, servedCount } = await import('./serialised-payments.ts');
    const { expectChallengeSchema } = await import('./schema-check.ts');
    const intent = { seq: 1, method: 'POST', path: '/v1/payment_intents', params: {}, status: 200, response: { id: 'pi_1', status: 'succeeded' } } as never;
    expect(await named(() => expectNoIntent([intent]))).toEqual(['CR-1.1']);
    expect(await named(() => expectIntentCount([], 1))).toEqual(['CR-1.1']);
    expect(await named(() => customerOf([]))).toEqual(['CR-7.5']);
    expect(await named(() => expectRecords([], [{ type: 'topup', amount: 1 }], 'c'))).toEqual(['CR-11.8']);
    expect(await named(() => expectClientRecord(null, {}, 0))).toEqual(['CR-11.7']);
    expect(await named(() => expectServiceUnavailable(paymentError('x', 'y')))).toEqual(['CR-1.1']);
    expect(await named(() => expectCreditsLadder([], 1, 0, 1))).toEqual(['CR-6.7']);
    expect(await named(() => expectOneChargeLadder([], 1, 1))).toEqual(['CR-14.7']);
    expect(await named(() => servedCount(7, 10, 2, [1]))).toEqual(['CR-1.1']);
    const challenge = { ...paymentError('x', 'y'), answer: { status: 402, rawHeaders: [], headers: {}, text: '{}', json: {}, paymentRequired: { ok: true, value: { accepts: [{}] } } } } as unknown as Exchange;
    expect(await named(() => expectChallengeSchema(challenge))).toHaveLength(1);
  });
});
