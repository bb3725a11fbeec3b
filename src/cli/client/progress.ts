/**
 * Progress of a long command (`sync --wait` …) on stderr, so stdout keeps only the result: a spinner (ora) whose text
 * follows the state on a terminal, plain lines (each state change once, no escape codes) when stderr is a pipe or a
 * file, TERM is dumb, or the terminal reports no width (a pseudo-terminal with 0 columns, as `script` makes in CI:
 * the spinner would count its text as infinitely many lines and erase them forever). Events and other notes are
 * lines in both modes.
 */
import type { Ora } from 'ora';

export interface Progress {
  /** The current state, e.g. "running · OutOfSync · Progressing". */
  state(text: string): void;
  /** A line that stays (an event). */
  note(text: string): void;
  /** Ends the progress with a final line, marked as success or failure. */
  done(ok: boolean, text: string): void;
}

/**
 * Whether `stream` gets a spinner: a terminal other than TERM=dumb that reports its width (CI or not: a terminal is a
 * terminal; one of 0 or unknown columns is not one a spinner can redraw).
 */
export function isInteractive(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env['TERM'] !== 'dumb' && (stream.columns ?? 0) > 0;
}

/**
 * `stream` as the spinner sees it: never narrower than one column, so a terminal shrunk to 0 columns after the
 * start still gives a bounded redraw (ora divides by the width).
 */
function boundedWidth(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'columns') return Math.max(1, target.columns || 80);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

class SpinnerProgress implements Progress {
  readonly #spinner: Ora;
  constructor(spinner: Ora) {
    this.#spinner = spinner;
  }
  state(text: string): void {
    this.#spinner.text = text;
  }
  note(text: string): void {
    const current = this.#spinner.text;
    this.#spinner.stopAndPersist({ symbol: ' ', text });
    this.#spinner.start(current);
  }
  done(ok: boolean, text: string): void {
    if (ok) this.#spinner.succeed(text);
    else this.#spinner.fail(text);
  }
}

class PlainProgress implements Progress {
  readonly #stream: NodeJS.WritableStream;
  #last = '';
  constructor(stream: NodeJS.WritableStream) {
    this.#stream = stream;
  }
  state(text: string): void {
    if (text === this.#last) return;
    this.#last = text;
    this.#stream.write(`${text}\n`);
  }
  note(text: string): void {
    this.#stream.write(`  ${text}\n`);
  }
  done(ok: boolean, text: string): void {
    this.#stream.write(`${ok ? 'done' : 'failed'}: ${text}\n`);
  }
}

/**
 * Progress on `stream` (stderr by default): a spinner on a terminal, plain lines otherwise. ora is loaded only for a
 * terminal (it is most of a client command's start-up time).
 */
export async function progressOn(stream: NodeJS.WriteStream = process.stderr): Promise<Progress> {
  if (!isInteractive(stream)) return new PlainProgress(stream);
  const { default: ora } = await import('ora');
  // discardStdin stays off: it puts stdin in raw mode, and Ctrl-C must keep stopping the wait.
  return new SpinnerProgress(ora({ stream: boundedWidth(stream), isEnabled: true, discardStdin: false }).start());
}
