import { Worker } from 'node:worker_threads';
import { appError } from '@tessera/errors';

// onepw server stretch: scrypt(N=65536, r=8, p=1, dkLen=32) — about 135 ms and 64 MiB each.
// It runs in dedicated worker threads, not on libuv's pool: queued scrypt calls on that pool would
// stall every other user of it (async crypto, file I/O, DNS). Waiting work is capped: past the cap
// a request is answered at once with 503/201 and a retryAfter instead of joining a queue that
// would only time out.
export const SCRYPT_PARAMS = { N: 65536, r: 8, p: 1, dkLen: 32 } as const;
/** The cost of one stretch before any is measured (the reference machine's); then a moving average. */
const INITIAL_STRETCH_SECONDS = 0.135;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
// Linux nice values are per thread: when allowed (CAP_SYS_NICE), let stretches win the CPU over a
// flood of requests the main thread can only turn away.
if (workerData && workerData.nice) { try { require('node:os').setPriority(workerData.nice); } catch {} }
parentPort.on('message', ({ id, input, salt, N, r, p, dkLen }) => {
  try {
    const out = scryptSync(Buffer.from(input), Buffer.from(salt), dkLen, { N, r, p, maxmem: 256 * N * r });
    parentPort.postMessage({ id, out: new Uint8Array(out) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

interface Job {
  id: number;
  input: Uint8Array;
  salt: Uint8Array;
  resolve: (out: Uint8Array) => void;
  reject: (err: Error) => void;
  started: number;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

export interface ScryptPoolOptions {
  workers: number;
  maxPending: number;
  /** Nice value for the worker threads (negative raises their priority; needs CAP_SYS_NICE). */
  nice?: number;
}

export class ScryptPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private stretchSeconds = INITIAL_STRETCH_SECONDS;

  /** Stretches accepted so far (tests check that a path pays the password's cost). */
  accepted = 0;

  constructor(private readonly options: ScryptPoolOptions) {}

  /** Work waiting for a worker plus work running now. */
  get load(): number {
    return this.queue.length + this.slots.filter((s) => s.job).length;
  }

  /**
   * Throws SERVER_BUSY when no stretch can be queued now. Routes call it before any other work,
   * so a flood is turned away for the price of this check, not of a database read.
   */
  checkCapacity(): void {
    if (this.queue.length < this.options.maxPending) return;
    const ahead = this.queue.length + this.options.workers;
    const retryAfter = Math.max(1, Math.ceil((ahead / this.options.workers) * this.stretchSeconds));
    throw appError('SERVER_BUSY', { retryAfter });
  }

  /** scrypt(input, salt) with the protocol's parameters; rejects with SERVER_BUSY when saturated. */
  hash(input: Uint8Array, salt: Uint8Array): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new Error('scrypt pool is closed'));
    try {
      this.checkCapacity();
    } catch (err) {
      return Promise.reject(err);
    }
    this.accepted++;
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, salt, resolve, reject, started: 0 });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.options.workers) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      job.started = performance.now();
      slot.job = job;
      slot.worker.postMessage({ id: job.id, input: job.input, salt: job.salt, ...SCRYPT_PARAMS });
    }
  }

  // Workers start on first use, so an idle server does not hold their memory.
  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, name: 'scrypt', workerData: { nice: this.options.nice ?? 0 } });
    const slot: Slot = { worker, job: null };
    worker.on('message', (msg: { id: number; out?: Uint8Array; error?: string }) => {
      const job = slot.job;
      slot.job = null;
      if (job && job.id === msg.id) {
        // Learn what a stretch costs here, for honest retryAfter estimates.
        this.stretchSeconds = 0.9 * this.stretchSeconds + 0.1 * ((performance.now() - job.started) / 1000);
        if (msg.out) job.resolve(msg.out);
        else job.reject(new Error(`scrypt failed: ${msg.error}`));
      }
      this.dispatch();
    });
    worker.on('error', (err) => this.retire(slot, err));
    worker.on('exit', (code) => {
      if (!this.closed) this.retire(slot, new Error(`scrypt worker exited with ${code}`));
    });
    this.slots.push(slot);
    return slot;
  }

  private retire(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.job?.reject(err);
    slot.job = null;
    if (!this.closed) this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('scrypt pool closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
