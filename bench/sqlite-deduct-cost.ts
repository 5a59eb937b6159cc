// `tsx bench/sqlite-deduct-cost.ts`: what one gated request's SQLite write costs, today and with the proposed changes.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { sqliteSchema, sqliteTables } from '../reference/stores/sqlite-schema.ts';
import { percentile } from './stats.ts';

const REQUESTS = 40_000;
const CLIENT = 'a'.repeat(64);
const t = sqliteTables('credit402_');

interface Db { db: Database.Database; deduct: Database.Statement; append: Database.Statement }
type Step = (db: Db) => void;

/** A per-request write pattern: `make` builds the step once per database (transactions are prepared once). */
interface Variant { name: string; schema: string; make(db: Db): Step }

function open(path: string, schema: string): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.defaultSafeIntegers(true);
  db.exec(schema);
  db.prepare(`INSERT INTO ${t.clients} (client_id, balance, top_ups, created_at) VALUES (?, 9000000000, 0, ?)`).run(CLIENT, new Date().toISOString());
  return {
    db,
    deduct: db.prepare(`UPDATE ${t.clients} SET balance = balance - ? WHERE client_id = ? AND balance >= ? RETURNING balance`),
    append: db.prepare(`INSERT INTO ${t.transactions} (id, type, client_id, amount, created_at, payment_intent_id, resource) VALUES (?, ?, ?, ?, ?, ?, ?)`),
  };
}

const deduct = (d: Db): void => void d.deduct.get(1n, CLIENT, 1n);
const record = (d: Db): void => void d.append.run(randomUUID(), 'deduction', CLIENT, 1n, new Date().toISOString(), null, 'GET /api/nodesc');

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

function measure(variant: Variant, dir: string): string {
  const d = open(join(dir, `${variant.name.replace(/\W+/g, '_')}.db`), variant.schema);
  const step = variant.make(d);
  const latencies = new Float64Array(REQUESTS);
  const bytes = written();
  const cpu = process.cpuUsage();
  const began = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    step(d);
    latencies[i] = (performance.now() - start) * 1000;
  }
  const wall = ((performance.now() - began) * 1000) / REQUESTS;
  const { user, system } = process.cpuUsage(cpu);
  const kb = (written() - bytes) / REQUESTS / 1024;
  d.db.close();
  return `| ${variant.name} | ${wall.toFixed(1)} | ${(user / REQUESTS).toFixed(1)} | ${(system / REQUESTS).toFixed(1)} | ${percentile(latencies, 99).toFixed(0)} | ${kb.toFixed(1)} |`;
}

const schema = sqliteSchema(t);
const noUnique = schema.replace(/(\bid\s+TEXT\s+NOT NULL) UNIQUE/, '$1');
const variants: Variant[] = [
  { name: 'deduct only, autocommit (no log)', schema, make: () => deduct },
  { name: 'deduct + record, 1 IMMEDIATE txn per request (today)', schema, make: (d) => { const tx = d.db.transaction(() => { deduct(d); record(d); }); return () => tx.immediate(); } },
  { name: 'same, without UNIQUE on transactions.id', schema: noUnique, make: (d) => { const tx = d.db.transaction(() => { deduct(d); record(d); }); return () => tx.immediate(); } },
  { name: 'group commit of 8 requests, UNIQUE kept', schema, make: grouped(8) },
  { name: 'group commit of 8 requests, without UNIQUE', schema: noUnique, make: grouped(8) },
];

const dir = mkdtempSync(join(tmpdir(), 'credit402-sqlite-cost-'));
try {
  console.log(`${REQUESTS} requests of 1 unit against one client, WAL, synchronous=NORMAL (the SqliteStore's settings)\n`);
  console.log('| per-request write | wall µs/req | user µs/req | system µs/req | p99 µs (single step) | written KB/req |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const variant of variants) {
    if (variant.schema === noUnique && noUnique === schema) { console.log(`| ${variant.name} | schema changed, n/a | | | | |`); continue; }
    console.log(measure(variant, dir));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
