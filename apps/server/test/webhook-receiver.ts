import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../src/clock.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, verifyWebhook, type Scheduler } from '../src/senders/webhook/index.js';

// A local webhook receiver on 127.0.0.1 for tests of senders/webhook's users (support tickets,
// newsletters): it checks each delivery's signature as a real receiver would, keeps what arrived,
// and answers with the status the test sets (a failing helpdesk: 503).

export interface Received {
  event: string;
  delivery: string;
  /** Whether the signature header matched the body under the shared secret. */
  signed: boolean;
  body: Record<string, unknown>;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** What the next requests are answered with. */
  status = 200;
  /** Every request that came, answered 2xx or not. */
  attempts = 0;
  private server: Server | null = null;

  constructor(private readonly secret: string, private readonly clock: Clock) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.attempts += 1;
        const body = Buffer.concat(chunks).toString('utf8');
        if (this.status >= 200 && this.status < 300) {
          this.received.push({
            event: String(req.headers[EVENT_HEADER]),
            delivery: String(req.headers[DELIVERY_HEADER]),
            signed: verifyWebhook(this.secret, body, String(req.headers[SIGNATURE_HEADER] ?? ''), Math.floor(this.clock.now() / 1000)),
            body: JSON.parse(body) as Record<string, unknown>,
          });
        }
        res.writeHead(this.status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Timers the test fires: `due()` lists the waits asked for, `runDue()` runs those the clock has reached. */
export class ManualScheduler {
  private tasks: { at: number; ms: number; fn: () => void }[] = [];

  constructor(private readonly clock: Clock) {}

  readonly schedule: Scheduler = (fn, ms) => {
    const task = { at: this.clock.now() + ms, ms, fn };
    this.tasks.push(task);
    return () => {
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  };

  /** The waits (ms) of the timers pending. */
  pending(): number[] {
    return this.tasks.map((t) => t.ms);
  }

  runDue(): number {
    const due = this.tasks.filter((t) => t.at <= this.clock.now());
    this.tasks = this.tasks.filter((t) => !due.includes(t));
    for (const t of due) t.fn();
    return due.length;
  }
}
