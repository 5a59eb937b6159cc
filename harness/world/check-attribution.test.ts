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
  among,
  beginChecks,
  blamedIds,
  checkFor,
  declaredIds,
  endChecks,
  firstOf,
  judges,
  RequirementFailure,
  resolveIds,
  STEP_IDS,
  type CheckIds,
} from './check.ts';
import type { Exchange } from './exchange.ts';
import { expectPaymentError, expectServed } from './judge.ts';

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

describe('judges: a step body as the check of its IDs', () => {
  it('turns a plain assertion of a sync body into a failure naming the declared IDs', async () => {
    const step = judges('CR-5.1', () => {
      assert.equal(1, 2, 'one is two');
    });
    const failure = await failureOf(() => step.call(world()));
    expect(failure.ids).toEqual(['CR-5.1']);
    expect(failure.message).toMatch(/^\[CR-5\.1\] one is two/);
    expect(blamedIds(failure.message)).toEqual(['CR-5.1']);
    expect(failure.cause).toBeInstanceOf(AssertionError);
  });

  it('turns a rejection of an async body into a failure naming the declared IDs', async () => {
    const step = judges(['CR-7.14', 'CR-1.3'], async () => {
      await Promise.resolve();
      throw new Error('amount 500, expected 501');
    });
    const failure = await failureOf(() => step.call(world()));
    expect(failure.ids).toEqual(['CR-7.14', 'CR-1.3']);
    expect(failure.message).toBe('[CR-7.14, CR-1.3] amount 500, expected 501');
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

  it('lets a failure nested inside keep its own IDs', async () => {
    const direct = judges('CR-4.6', () => {
      throw new RequirementFailure(['CR-3.2'], 'not base64');
    });
    expect((await failureOf(() => direct.call(world()))).ids).toEqual(['CR-3.2']);
    const nested = judges('CR-4.6', async () => {
      checkFor('CR-5.1', () => assert.fail('no payment-required'));
    });
    expect((await failureOf(() => nested.call(world()))).ids).toEqual(['CR-5.1']);
  });

  it('refuses a step that names no ID, or something that is not one', () => {
    expect(() => judges([], () => {})).toThrow(/at least one requirement ID/);
    expect(() => judges('7.14', () => {})).toThrow(/not a requirement ID/);
    expect(() => among([], 'CR-4.6')).toThrow(/at least one/);
    expect(() => among(['CR-4.6'], [])).toThrow(/at least one/);
  });

  it('marks the wrapper with its declared IDs', () => {
    const ids = among(['CR-7.7', 'CR-13.24'], 'CR-8.7');
    expect(judges(ids, () => {})[STEP_IDS]).toBe(ids);
    expect(declaredIds(ids)).toEqual(['CR-7.7', 'CR-13.24', 'CR-8.7']);
  });
});

describe('candidates: the scenario tags that are candidates, else the default', () => {
  const message = among(['CR-7.7', 'CR-13.24', 'CR-13.35'], 'CR-8.7');

  it('resolves against the tags of the World the step runs in', async () => {
    const step = judges(message, () => {
      assert.fail('the error message');
    });
    expect((await failureOf(() => step.call(world('@CR-7.7', '@CR-8.3')))).ids).toEqual(['CR-7.7']);
    expect((await failureOf(() => step.call(world('@CR-13.24', '@shared-card')))).ids).toEqual(['CR-13.24']);
    expect((await failureOf(() => step.call(world('@CR-10.5')))).ids).toEqual(['CR-8.7']);
    expect((await failureOf(() => step.call(world())))).toMatchObject({ ids: ['CR-8.7'] });
  });

  it('names every tagged candidate of the lowest level: the check is judged at the lowest level that demands it', () => {
    expect(resolveIds(message, ['@CR-13.35', '@CR-13.24'])).toEqual(['CR-13.24', 'CR-13.35']);
    // CR-7.7 is wire, CR-13.24 strict: naming both would make a wire check strict.
    expect(resolveIds(message, ['@CR-13.24', '@CR-7.7'])).toEqual(['CR-7.7']);
  });

  it('firstOf names the first tagged candidate in its own order', () => {
    const first = firstOf(['CR-13.35', 'CR-13.24'], 'CR-13.37');
    expect(resolveIds(first, ['@CR-13.24', '@CR-13.35'])).toEqual(['CR-13.35']);
    expect(resolveIds(first, ['@CR-13.24'])).toEqual(['CR-13.24']);
    expect(resolveIds(first, [])).toEqual(['CR-13.37']);
  });

  it('resolves the candidates of a checkFor inside a step against the same scenario', async () => {
    const step = judges('CR-4.6', () => {
      checkFor(message, () => assert.fail('nested'));
    });
    expect((await failureOf(() => step.call(world('@CR-13.35')))).ids).toEqual(['CR-13.35']);
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

  it('does not count a Then failure above the run level', async () => {
    const context = beginChecks('wire', 'wire');
    await strictStep.call(world('@CR-7.7', '@CR-13.24'));
    expect(context.deferred).toEqual([]);
    expect([...context.notJudged]).toEqual(['CR-13.24']);
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
});

/** A 402 payment error answer. */
function paymentError(code: string, message: string): Exchange {
  const body = { success: false, creditsRemaining: 0, clientId: '', error: message, errorCode: code };
  const text = JSON.stringify(body);
  return {
    request: { method: 'GET', target: '/api/weather' },
    path: '/api/weather',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    answer: { status: 402, rawHeaders: [['content-type', 'application/json']], headers: { 'content-type': 'application/json' }, text, json: body },
  };
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
    expect((await failureOf(() => card.call(world('@CR-7.20', '@CR-8.6', '@CR-13.24'), paymentError('card_declined', 'declined')))).ids).toEqual(['CR-7.20', 'CR-8.6']);
    expect(() => expectPaymentError(paymentError('invalid_payment', 'bad'), 'invalid_payment', 'Malformed payment header')).toThrow(/^\[CR-3\.5\] the error message/);
  });

  it('leaves a wrong outcome to the caller, or to the IDs it passes', async () => {
    const step = judges('CR-6.2', function (this: unknown, exchange: Exchange) {
      expectServed(exchange, 'GET /api/weather');
    });
    expect((await failureOf(() => step.call(world(), paymentError('payment_failed', 'x')))).ids).toEqual(['CR-6.2']);
    expect(() => expectPaymentError(paymentError('payment_failed', 'x'), 'card_declined', undefined, 'CR-8.6')).toThrow(/^\[CR-8\.6\] expected the payment error card_declined/);
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
  it('registers steps only through harness/steps/define.ts, never with Given/When/Then of @cucumber/cucumber', () => {
    const offenders = [...supportFiles(STEPS), ...supportFiles(HARNESS.replace(/\/?$/, '/world'))]
      .filter((file) => !file.endsWith(join('steps', 'define.ts')))
      .flatMap((file) => {
        const names = cucumberImports(readFileSync(file, 'utf8')).filter((name) => ['Given', 'When', 'Then', 'defineStep'].includes(name));
        return names.length === 0 ? [] : [`${file}: ${names.join(', ')}`];
      });
    expect(offenders).toEqual([]);
  });

  it('wraps every registration of harness/steps with judges, naming requirements of the spec', async () => {
    const files = supportFiles(STEPS).sort();
    const problems: string[] = [];
    let total = 0;
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
      total += mine.length;
    }
    expect(problems).toEqual([]);
    expect(total).toBeGreaterThan(100);
  });

  it('names only requirements of the spec in the checks of harness/world and harness/steps', () => {
    const unknown = [...supportFiles(STEPS), ...supportFiles(join(HARNESS, 'world'))].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/'(CR-\d+\.\d+)'/g)].map(([, id]) => id ?? '').filter((id) => !KNOWN.has(id)).map((id) => `${file}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });
});
