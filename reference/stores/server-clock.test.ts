// ServerClock: the highest of the last three lower bounds is the offset, a deadline is the caller's less the margin on the server's clock.
import { describe, expect, it } from 'vitest';
import { ServerClock } from './server-clock.ts';

describe('ServerClock', () => {
  it('measures once at the first use, shares that measurement, and turns a caller deadline into a server one less the margin', async () => {
    let calls = 0;
    const clock = new ServerClock(async () => {
      calls++;
      return 1_000_000;
    });
    expect(clock.offset).toBeUndefined();
    expect(await Promise.all([clock.ready(), clock.ready()])).toEqual([1_000_000, 1_000_000]);
    expect(calls).toBe(1);
    expect(clock.deadlineOf({ notAfter: 5_000.7, timeoutMs: 500 }, 1_000_000)).toBe(1_004_900);
    expect(clock.deadlineOf({ notAfter: 5_000, timeoutMs: 100 }, 1_000_000)).toBe(1_004_980);
    expect(clock.deadlineOf({ notAfter: undefined, timeoutMs: undefined }, 1_000_000)).toBeUndefined();
    clock.stop();
  });

  it('asks again after a failed first measurement', async () => {
    let fail = true;
    const clock = new ServerClock(async () => {
      if (fail) throw new Error('down');
      return 7;
    });
    await expect(clock.ready()).rejects.toThrow('down');
    fail = false;
    expect(await clock.ready()).toBe(7);
    clock.stop();
  });
});
