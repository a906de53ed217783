import { createInterface } from 'node:readline';
import { terminalWidth, type IO } from '../../io.js';
import { ask, type Asked, type PromptOptions } from '../../prompt.js';

/** The placeholder of the chat's prompt (its width matters when the closed prompt is erased). */
export const CHAT_PLACEHOLDER = 'a message, or /help';

/**
 * Who writes on a chat's terminal, and when. A run started with `/run` reports while the user
 * types or a reply streams; written straight out, its lines would land inside the prompt (which
 * @clack/prompts redraws by moving the cursor over its last frame) or in the middle of a reply. So
 * a run's text is held while a reply streams and printed after it, and an open prompt is closed at
 * once, the text printed, and the prompt opened again with what had been typed.
 */
export class ChatScreen {
  #held = '';
  #replying = false;
  #prompt: AbortController | undefined;

  constructor(private readonly io: IO) {}

  /** Text of a followed run: out now, or as soon as the prompt is closed or the reply ends. */
  readonly print = (text: string): void => {
    if (!this.#replying && !this.#prompt) return this.io.out(text);
    this.#held += text;
    this.#prompt?.abort();
  };

  /** A reply streams during `work`: a run's text waits for its end. */
  async replying<T>(work: () => Promise<T>): Promise<T> {
    this.#replying = true;
    try {
      return await work();
    } finally {
      this.#replying = false;
      this.#flush();
    }
  }

  /** Asks with `open` (a clack text prompt), closed and opened again whenever a run has something to say. */
  async ask(open: (options: PromptOptions & { initialValue?: string }) => Promise<string | symbol>): Promise<Asked<string>> {
    let typed = '';
    for (;;) {
      this.#flush();
      const interrupt = new AbortController();
      this.#prompt = interrupt;
      // clack keeps the line being typed to itself: a second reader of the same keys keeps a copy,
      // so an interrupted prompt opens again with it.
      const copy = createInterface({ input: this.io.stdin, terminal: true });
      if (typed) copy.write(typed);
      let asked: Asked<string>;
      try {
        asked = await ask(this.io, (options) => open({ ...options, ...(typed ? { initialValue: typed } : {}) }), interrupt.signal);
      } finally {
        this.#prompt = undefined;
        typed = copy.line;
        copy.close();
      }
      if (!('ended' in asked) || asked.ended !== 'interrupted') {
        this.#flush();
        return asked;
      }
      // The closed prompt left the terminal cooked: keys typed before it opens again would be echoed
      // (over the lines about to be erased) and Enter turned into a newline, which clack does not
      // submit on. Raw, they wait as keys for the prompt opened again.
      if (this.io.isStdinTTY) (this.io.stdin as { setRawMode?: (raw: boolean) => void }).setRawMode?.(true);
      this.#eraseClosedPrompt(typed);
    }
  }

  /**
   * An aborted clack prompt leaves its last frame on the screen (it does not redraw when closed by
   * its signal): `│`, `◆  you`, `│  <typed>`, `└`, then the newline of its close. Erased when the
   * typed line took one row, the usual case; a longer one is left (a wrong count would erase output).
   */
  #eraseClosedPrompt(typed: string): void {
    const width = terminalWidth(this.io.stdout);
    const valueWidth = 3 + Math.max(typed.length + 1, CHAT_PLACEHOLDER.length);
    // Printable ASCII only: its width on the screen is its length.
    if (!this.io.isStdoutTTY || width === undefined || valueWidth >= width || /[^\x20-\x7e]/.test(typed)) return;
    this.io.out('\u001b[5A\r\u001b[J');
  }

  #flush(): void {
    if (this.#held === '') return;
    const held = this.#held;
    this.#held = '';
    this.io.out(held);
  }
}
