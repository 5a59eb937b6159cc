// Tests of the framework `credit402 serve` picks when none is named: Fastify, else Express, else a coded error naming both.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Credit402ConfigError } from '../config/config-error.ts';
import { REPO_ROOT, SOURCE_NODE_OPTIONS } from 'credit402-tooling/testing/kit';
import { fileNamesFramework, installedFramework, isInstalled } from './installed-framework.ts';

const only = (...names: string[]) => async (name: string): Promise<boolean> => names.includes(name);

describe('installedFramework', () => {
  it('prefers fastify, then express', async () => {
    expect(await installedFramework(only('fastify', 'express'))).toBe('fastify');
    expect(await installedFramework(only('fastify'))).toBe('fastify');
    expect(await installedFramework(only('express'))).toBe('express');
  });

  it('names both packages and the flag when neither is installed (ERR_MISSING_PACKAGE)', async () => {
    const error = await installedFramework(only()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Credit402ConfigError);
    expect(error).toMatchObject({ code: 'ERR_MISSING_PACKAGE' });
    expect(String((error as Error).message)).toMatch(/npm install fastify.*npm install express.*--framework/);
  });

  it('finds the repository\'s fastify and express installed', async () => {
    expect(await isInstalled('fastify')).toBe(true);
    expect(await isInstalled('express')).toBe(true);
  });
});

describe('fileNamesFramework', () => {
  it('tells a --config file that names a framework from one that does not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'credit402-framework-'));
    writeFileSync(join(dir, 'named.json'), JSON.stringify({ framework: 'http' }));
    writeFileSync(join(dir, 'unnamed.json'), JSON.stringify({ port: 0 }));
    expect(fileNamesFramework(join(dir, 'named.json'))).toBe(true);
    expect(fileNamesFramework(join(dir, 'unnamed.json'))).toBe(false);
    expect(fileNamesFramework(join(dir, 'missing.json'))).toBe(false);
    expect(fileNamesFramework(undefined)).toBe(false);
  });
});

/** Runs `credit402 serve` with `hidden` not installed until it prints its URL (or exits); the output so far. */
function serveWithout(hidden: string, args: string[]): Promise<string> {
  const hide = fileURLToPath(new URL('../../tooling/testing/hide-package.mjs', import.meta.url));
  const child = spawn(process.execPath, [...SOURCE_NODE_OPTIONS, `--import=${hide}`, `${REPO_ROOT}reference/cli.ts`, 'serve', ...args], {
    env: { ...process.env, CREDIT402_HIDE_PACKAGE: hidden, CREDIT402_FRAMEWORK: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      resolve(output);
    };
    const timer = setTimeout(done, 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('listening on')) done();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', done);
  });
}

describe('credit402 serve without --framework', () => {
  const args = ['--store', 'memory', '--stripe-api', 'http://127.0.0.1:9', '--port', '0', '--host', '127.0.0.1'];

  it('runs on Express, and says so, in a project without fastify', async () => {
    const output = await serveWithout('fastify', args);
    expect(output).toContain('credit402: framework express (fastify is not installed; --framework to choose)');
    expect(output).toContain('credit402 reference server (express, store: memory)');
  }, 30_000);

  it('keeps the framework --framework names', async () => {
    const output = await serveWithout('express', [...args, '--framework', 'http']);
    expect(output).not.toContain('credit402: framework');
    expect(output).toContain('credit402 reference server (http, store: memory)');
  }, 30_000);
});
