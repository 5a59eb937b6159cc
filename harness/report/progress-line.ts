// The running count of scenarios: one line redrawn in place on a TTY, a plain line every few seconds otherwise.
import type { Writable } from 'node:stream';

/** Counts shown by the progress line. */
interface Progress {
  done: number;
  total: number;
  failed: number;
}

/** Formats the counts, e.g. `[12/120 scenarios] 1 failed, 34 s`. */
export function progressText({ done, total, failed }: Progress, elapsedMs: number): string {
  return `[${done}/${total} scenarios] ${failed} failed, ${Math.round(elapsedMs / 1000)} s`;
}

/** Writes progress to `stream`; call {@link clear} before printing anything else and {@link stop} at the end. */
export class ProgressLine {
  readonly #stream: Writable & { isTTY?: boolean };
  readonly #started = Date.now();
  readonly #timer: NodeJS.Timeout;
  #progress: Progress = { done: 0, total: 0, failed: 0 };
  #shown = false;

  constructor(stream: Writable & { isTTY?: boolean }, intervalMs = 10_000) {
    this.#stream = stream;
    this.#timer = setInterval(() => (this.#stream.isTTY ? this.#draw() : this.#print()), this.#stream.isTTY ? 1000 : intervalMs);
    this.#timer.unref();
  }

  update(progress: Progress): void {
    this.#progress = progress;
    if (this.#stream.isTTY) this.#draw();
  }

  #draw(): void {
    this.#stream.write(`\r\x1b[2K${progressText(this.#progress, Date.now() - this.#started)}`);
    this.#shown = true;
  }

  #print(): void {
    this.#stream.write(`${progressText(this.#progress, Date.now() - this.#started)}\n`);
  }

  /** Removes the in-place line (TTY) so other output starts on a clean line. */
  clear(): void {
    if (this.#shown) this.#stream.write('\r\x1b[2K');
    this.#shown = false;
  }

  /** Stops the timer and removes the in-place line. */
  stop(): void {
    clearInterval(this.#timer);
    this.clear();
  }
}
