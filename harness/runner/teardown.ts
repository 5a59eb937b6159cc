// Undo stack of a run: everything started registers how to stop it; stopped in reverse order, also on SIGINT/SIGTERM.

type Step = { label: string; stop: () => Promise<void> | void };

/** Collects clean-up steps and runs them once, newest first. */
export class Teardown {
  readonly #steps: Step[] = [];
  readonly #lastResort = new Set<() => void>();
  #done: Promise<void> | undefined;

  /** Registers an asynchronous clean-up step. */
  add(label: string, stop: () => Promise<void> | void): void {
    this.#steps.push({ label, stop });
  }

  /** Registers a synchronous kill for process exit and a second signal; it must be harmless once the thing is stopped. */
  lastResort(kill: () => void): void {
    this.#lastResort.add(kill);
  }

  /** True once the clean-up has begun (a failure after that is a consequence, not news). */
  get started(): boolean {
    return this.#done !== undefined;
  }

  /** Runs every step once (later calls wait for the first); failures are reported, not thrown. */
  run(report: (message: string) => void = (message) => console.error(message)): Promise<void> {
    this.#done ??= (async () => {
      for (const step of this.#steps.reverse()) {
        try {
          await step.stop();
        } catch (error) {
          report(`conformance: could not stop ${step.label}: ${(error as Error).message}`);
        }
      }
      this.#steps.length = 0;
    })();
    return this.#done;
  }

  /**
   * On SIGINT/SIGTERM runs the clean-up, then exits 130/143; a second signal kills what is left at once.
   * On process exit runs the last-resort kills. Returns an unsubscribe function.
   */
  handleSignals(): () => void {
    const killAll = (): void => {
      for (const kill of this.#lastResort) kill();
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      const code = signal === 'SIGINT' ? 130 : 143;
      if (this.started) {
        killAll();
        process.exit(code);
      }
      console.error(`\nconformance: ${signal} received, stopping the target and services (again to kill them at once)`);
      void this.run().finally(() => process.exit(code));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.once('exit', killAll);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', killAll);
    };
  }
}

/**
 * Runs `body` with a teardown that also runs on SIGINT/SIGTERM, and runs it at the end whatever happens; resolves to
 * `body`'s exit code, or 2 after telling `say` what failed (the stack with CREDIT402_DEBUG set).
 */
export async function withTeardown(say: (line: string) => void, body: (teardown: Teardown) => Promise<number>): Promise<number> {
  const teardown = new Teardown();
  const unsubscribe = teardown.handleSignals();
  try {
    return await body(teardown);
  } catch (error) {
    if (!teardown.started) say(process.env.CREDIT402_DEBUG ? String((error as Error).stack) : (error as Error).message);
    return 2;
  } finally {
    await teardown.run();
    unsubscribe();
  }
}
