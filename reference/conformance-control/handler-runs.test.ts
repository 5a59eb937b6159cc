// HandlerRuns: counts per request id, bounded memory, and the handled route's answer.
import { describe, expect, it } from 'vitest';
import { HandlerRuns } from './handler-runs.ts';

describe('HandlerRuns', () => {
  it('counts each run under its request id; requests without one are not counted', () => {
    const runs = new HandlerRuns();
    runs.record('a');
    runs.record('a');
    runs.record('b');
    runs.record(undefined);
    runs.record('');
    expect([runs.count('a'), runs.count('b'), runs.count('c'), runs.count('')]).toEqual([2, 1, 0, 0]);
  });

  it('counts a header sent twice under its values joined as Node joins them', () => {
    const runs = new HandlerRuns();
    runs.record(['x', 'y']);
    expect(runs.count('x, y')).toBe(1);
  });

  it('remembers only the last `limit` ids, forgetting the oldest first', () => {
    const runs = new HandlerRuns(3);
    for (const id of ['a', 'b', 'c']) runs.record(id);
    runs.record('a');
    runs.record('d');
    expect(['a', 'b', 'c', 'd'].map((id) => runs.count(id))).toEqual([0, 1, 1, 1]);
  });

  it('answers the handled route with a count for every id asked for, 0 when unknown', () => {
    const runs = new HandlerRuns();
    runs.record('a1');
    runs.record('__proto__');
    expect(runs.answer('/_conformance/handled?ids=a1,zz,__proto__')).toEqual(JSON.parse('{"a1":1,"zz":0,"__proto__":1}'));
    expect(JSON.stringify(runs.answer('/_conformance/handled?ids=a1&ids=b,,c'))).toBe('{"a1":1,"b":0,"c":0}');
    expect(runs.answer('/_conformance/handled')).toEqual({});
  });

  it('answers at most 1000 ids per query', () => {
    const ids = Array.from({ length: 1200 }, (_, i) => `id${i}`);
    expect(Object.keys(new HandlerRuns().answer(`/_conformance/handled?ids=${ids.join(',')}`))).toHaveLength(1000);
  });
});
