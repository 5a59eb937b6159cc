// `tsx bench/sqlite-deduct-cost.ts`: what one gated request's SQLite write costs: raw write patterns, then the SqliteStore itself.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { sqliteSchema, sqliteTables } from '../reference/stores/sqlite/sqlite-schema.ts';
import { prepareStatements, type SqliteStatements } from '../reference/stores/sqlite/sqlite-statements.ts';
import { SqliteStore } from '../reference/stores/sqlite/sqlite-store.ts';
import { percentile } from './stats.ts';

const REQUESTS = 40_000;
const CLIENT = 'a'.repeat(64);
const t = sqliteTables('credit402_');

/** An open database with the store's schema and statements (reference/stores/sqlite/sqlite-statements.ts), one funded client. */
interface Db { db: Database.Database; sql: SqliteStatements }
type Step = () => void;

/** A per-request write pattern: `make` builds the step once per database (transactions are prepared once). */
interface Variant { name: string; make(db: Db): Step }

function open(path: string): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.defaultSafeIntegers(true);
  db.exec(sqliteSchema(t));
  db.prepare(`INSERT INTO ${t.clients} (client_id, top_ups, created_at) VALUES (?, 0, ?)`).run(CLIENT, new Date().toISOString());
  db.prepare(`INSERT INTO ${t.balances} (client_id, currency, balance) VALUES (?, 'usd', 9000000000)`).run(CLIENT);
  return { db, sql: prepareStatements(db, t) };
}

const deduct = (d: Db): void => void d.sql.deduct.get(1n, CLIENT, 'usd', 1n);
const record = (d: Db): void => void d.sql.append.run(randomUUID(), 'deduction', CLIENT, 'usd', 1n, new Date().toISOString(), null, 'GET /api/nodesc');

/** One IMMEDIATE transaction per `size` requests, each a deduction with its record (a per-tick group commit). */
function grouped(size: number): (d: Db) => Step {
  return (d) => {
    const group = d.db.transaction((n: number) => {
      for (let i = 0; i < n; i++) { deduct(d); record(d); }
    });
    let pending = 0;
    return () => {
      if (++pending === size) { group.immediate(pending); pending = 0; }
    };
  };
}

function written(): number {
  return Number(/wchar:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
}

/** Starts counting wall time, CPU and bytes written; the function returned ends the count as a row of the table. */
function startCounting(): (name: string, requests: number, latencies: Float64Array) => string {
  const bytes = written();
  const cpu = process.cpuUsage();
  const began = performance.now();
  return (name, requests, latencies) => {
    const wall = ((performance.now() - began) * 1000) / requests;
    const { user, system } = process.cpuUsage(cpu);
    const kb = (written() - bytes) / requests / 1024;
    return `| ${name} | ${wall.toFixed(1)} | ${(user / requests).toFixed(1)} | ${(system / requests).toFixed(1)} | ${percentile(latencies, 99).toFixed(0)} | ${kb.toFixed(1)} |`;
  };
}

function measure(variant: Variant, dir: string): string {
  const d = open(join(dir, `${variant.name.replace(/\W+/g, '_')}.db`));
  const step = variant.make(d);
  const latencies = new Float64Array(REQUESTS);
  const finish = startCounting();
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    step();
    latencies[i] = (performance.now() - start) * 1000;
  }
  const row = finish(variant.name, REQUESTS, latencies);
  d.db.close();
  return row;
}

const variants: Variant[] = [
  { name: 'deduct only, autocommit, no log (the bench floor)', make: (d) => () => deduct(d) },
  { name: 'deduct + record, 1 IMMEDIATE txn per request (the SqliteStore today)', make: (d) => { const tx = d.db.transaction(() => { deduct(d); record(d); }); return () => tx.immediate(); } },
  { name: 'deduct + record, autocommit each (no txn: not atomic, for scale)', make: (d) => () => { deduct(d); record(d); } },
  { name: 'group commit of 8 requests', make: grouped(8) },
  { name: 'group commit of 64 requests', make: grouped(64) },
];

/**
 * The SqliteStore itself (its guards, and group commit where the store has it): `perTurn` deductions with their
 * record asked together, awaited, again and again. The p99 column is the p99 of one turn's wait, per request.
 */
async function measureStore(perTurn: number, dir: string): Promise<string> {
  const store = new SqliteStore({ path: join(dir, `store-${perTurn}.db`) });
  await store.addBalance(CLIENT, 'usd', 9_000_000_000);
  const turns = Math.ceil(REQUESTS / perTurn);
  const latencies = new Float64Array(turns);
  const finish = startCounting();
  for (let i = 0; i < turns; i++) {
    const start = performance.now();
    await Promise.all(Array.from({ length: perTurn }, () => store.deductBalance({
      clientId: CLIENT, currency: 'usd', amount: 1,
      record: { id: randomUUID(), type: 'deduction', clientId: CLIENT, currency: 'usd', amount: 1, createdAt: new Date().toISOString(), resource: 'GET /api/nodesc' },
    })));
    latencies[i] = ((performance.now() - start) * 1000) / perTurn;
  }
  const row = finish(`SqliteStore.deductBalance with record, ${perTurn} asked per turn`, turns * perTurn, latencies);
  await store.close();
  return row;
}

const dir = mkdtempSync(join(tmpdir(), 'credit402-sqlite-cost-'));
try {
  console.log(`${REQUESTS} requests of 1 unit against one client, WAL, synchronous=NORMAL (the SqliteStore's settings and statements)\n`);
  console.log('| per-request write | wall µs/req | user µs/req | system µs/req | p99 µs (single step) | written KB/req |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const variant of variants) console.log(measure(variant, dir));
  for (const perTurn of [1, 8, 64]) console.log(await measureStore(perTurn, dir));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
