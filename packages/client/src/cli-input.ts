// The `tessera` CLI's input: answers read line by line from stdin (a terminal or a pipe), and
// passwords read from a terminal in raw mode, so nothing typed is echoed. One reader owns stdin
// for the whole run: answers may arrive together on a pipe, and a password read in raw mode must
// not be seen by a line reader too.

/** Ctrl-C at a password prompt: the terminal is restored and the CLI exits 130 (128 + SIGINT). */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/** Stdin ended before an answer; `message` says what was left undone. */
export class InputClosed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputClosed';
  }
}

type Stdin = NodeJS.ReadStream & { setRawMode?: (raw: boolean) => unknown };

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const BACKSPACE = '\u007f';
const CTRL_H = '\b';
const ESC = '\u001b';

export class Input {
  private buffered = '';
  private ended = false;
  private started = false;
  /** The consumer of the next chunk, when an answer is awaited. */
  private onChunk: (() => void) | undefined;

  constructor(private readonly stdin: Stdin = process.stdin, private readonly prompts: NodeJS.WritableStream = process.stderr) {}

  /** Whether passwords can be read without echo (stdin is a terminal). */
  get isTerminal(): boolean {
    return Boolean(this.stdin.isTTY && this.stdin.setRawMode);
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.stdin.setEncoding('utf8');
    this.stdin.on('data', (chunk: string) => {
      this.buffered += chunk;
      this.onChunk?.();
    });
    this.stdin.on('end', () => {
      this.ended = true;
      this.onChunk?.();
    });
  }

  /**
   * Writes `question` and resolves with the next line, without its line ending. When stdin ends
   * first, rejects with InputClosed carrying `ifClosed`.
   */
  line(question: string, ifClosed: string): Promise<string> {
    this.start();
    if (question) this.prompts.write(question);
    return new Promise((resolve, reject) => {
      const take = () => {
        const nl = this.buffered.indexOf('\n');
        if (nl < 0 && !(this.ended && this.buffered)) {
          if (!this.ended) return;
          this.finish();
          reject(new InputClosed(ifClosed));
          return;
        }
        const end = nl < 0 ? this.buffered.length : nl;
        const answer = this.buffered.slice(0, end).replace(/\r$/, '');
        this.buffered = this.buffered.slice(end + 1);
        this.finish();
        resolve(answer);
      };
      this.onChunk = take;
      this.stdin.resume();
      take();
    });
  }

  /**
   * Reads a password from the terminal with echo off (raw mode): Enter ends it, Backspace and
   * Ctrl-U edit it, Ctrl-C rejects with Interrupted, Ctrl-D on an empty line with InputClosed.
   * The terminal's mode is restored on every path.
   */
  secret(question: string): Promise<string> {
    if (!this.isTerminal) throw new Error('secret() needs a terminal');
    this.start();
    // Raw mode first, then the prompt: whatever is typed after the prompt is never echoed.
    this.stdin.setRawMode!(true);
    this.prompts.write(question);
    return new Promise((resolve, reject) => {
      let typed = '';
      const done = (err?: Error) => {
        this.stdin.setRawMode!(false);
        this.prompts.write('\n');
        this.finish();
        if (err) reject(err);
        else resolve(typed);
      };
      const take = () => {
        const chars = [...this.buffered];
        this.buffered = '';
        for (let i = 0; i < chars.length; i++) {
          const ch = chars[i]!;
          if (ch === '\r' || ch === '\n') {
            // Whatever followed Enter in the same chunk is the next answer's.
            this.buffered = chars.slice(i + 1).join('').replace(/^\n/, '');
            return done();
          }
          if (ch === CTRL_C) return done(new Interrupted());
          if (ch === CTRL_D) {
            if (!typed) return done(new InputClosed('no password entered'));
            return done();
          }
          if (ch === BACKSPACE || ch === CTRL_H) typed = [...typed].slice(0, -1).join('');
          else if (ch === CTRL_U) typed = '';
          else if (ch === ESC) {
            // An escape sequence (arrow keys, Home, …): skip it up to its final letter or ~.
            if (chars[i + 1] === '[' || chars[i + 1] === 'O') {
              i += 2;
              while (i < chars.length && !/[A-Za-z~]/.test(chars[i]!)) i++;
            }
          } else if (ch >= ' ') typed += ch;
        }
        if (this.ended) done(new InputClosed('no password entered'));
      };
      this.onChunk = take;
      this.stdin.resume();
      take();
    });
  }

  private finish(): void {
    this.onChunk = undefined;
    // Paused between answers: a CLI waiting on the network is not reading the terminal.
    this.stdin.pause();
  }
}
