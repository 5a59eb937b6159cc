// The JSON report of one bench run: its shape, the machine it ran on, and where it is written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceResult } from './conformance.ts';
import type { FreeAppCost } from './express-free-micro.ts';
import type { FirstPaymentResult } from './first-payment.ts';
import type { IdleResult } from './idle.ts';
import type { PaidStages } from './paid-stages.ts';
import type { GatewayResult } from './gateway/gateway-bench.ts';
import type { HotPathResult } from './hot-path.ts';
import type { BenchOptions } from './options.ts';
import type { SoakResult } from './soak.ts';
import type { TargetVerdict } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The machine a run was made on. */
interface MachineInfo {
  cores: number;
  cpuModel: string;
  node: string;
  platform: string;
  totalMemoryGB: number;
  /** 1-minute load average when the run started (other work on the machine adds noise). */
  loadAverage: number;
}

/** Everything one run measured; `reports/bench-<ISO timestamp>.json`. */
export interface BenchReport {
  startedAt: string;
  wallSeconds: number;
  machine: MachineInfo;
  options: Omit<BenchOptions, 'configs' | 'soakConfig'> & { configs: string[]; soakConfig: string };
  hotPath: HotPathResult[];
  /** Configurations that could not run (Redis down, …) and why. */
  skipped: Array<{ config: string; reason: string }>;
  firstPayment?: FirstPaymentResult;
  soak?: SoakResult;
  /** Free requests through Express in process: bare, each credit402 form, the reference apps (CPU µs per request). */
  expressFree?: FreeAppCost[];
  /** A paid request on memory stage by stage, in process (CPU µs per request). */
  paidStages?: PaidStages;
  /** Each store's reference server left idle: its CPU over the window. */
  idle?: IdleResult[];
  /** The gateway vs its upstream vs the in-process plugin (issue 15). */
  gateway?: GatewayResult;
  /** Why the gateway was not measured, when it was asked for and failed. */
  gatewaySkipped?: string;
  conformance?: ConformanceResult;
  targets: TargetVerdict[];
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    totalMemoryGB: Math.round(totalmem() / 1024 ** 3),
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** The default report path for a run started at `startedAt`. */
export function defaultReportPath(startedAt: string): string {
  return resolve(ROOT, 'reports', `bench-${startedAt.replace(/:/g, '-')}.json`);
}

/** Writes the report as JSON; resolves to the absolute path. */
export function writeReport(report: BenchReport, path: string): string {
  const absolute = resolve(path);
  mkdirSync(dirname(absolute), { recursive: true });
  writeFileSync(absolute, `${JSON.stringify(report, null, 2)}\n`);
  return absolute;
}
