// Unit tests of the shared deadline timer: expiry in order, settled calls skipped, no timer left when nothing waits.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DeadlineQueue } from './deadline-queue.ts';

describe('DeadlineQueue', () => {
  it('expires the unsettled calls past their deadline, in order, and never a settled one', async () => {
    const queue = new DeadlineQueue(20);
    const expired: string[] = [];
    const first = queue.watch(() => expired.push('first'));
    queue.watch(() => expired.push('second'));
    await sleep(5);
    queue.watch(() => expired.push('third'));
    queue.settle(first);
    await sleep(19);
    expect(expired).toEqual(['second']);
    await sleep(15);
    expect(expired).toEqual(['second', 'third']);
  });

  it('re-arms for calls added after the queue went idle', async () => {
    const queue = new DeadlineQueue(5);
    const expired: number[] = [];
    queue.watch(() => expired.push(1));
    await sleep(15);
    queue.watch(() => expired.push(2));
    await sleep(15);
    expect(expired).toEqual([1, 2]);
  });

  it('keeps up with many calls settled before their deadline', async () => {
    const queue = new DeadlineQueue(10);
    let expired = 0;
    for (let index = 0; index < 5_000; index++) queue.settle(queue.watch(() => expired++));
    await sleep(25);
    expect(expired).toBe(0);
  });
});
