import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A Web Push service for tests: HTTPS on 127.0.0.1 with a certificate made for the run (the server
// under test trusts it through PUSH_CA_FILE and allows the host through PUSH_ALLOWED_HOSTS — both
// configuration, no test-only code path). It records each push and answers 201, or what a test
// sets for an endpoint (410 for a gone subscription, a delay for a slow service).

export interface ReceivedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A browser's side of one subscription: its key pair and auth secret, and the endpoint it got. */
export class Subscriber {
  readonly ecdh: ECDH = createECDH('prime256v1');
  readonly auth = randomBytes(16);
  constructor(readonly endpoint: string) {
    this.ecdh.generateKeys();
  }

  get keys() {
    return { pushPublicKey: this.ecdh.getPublicKey().toString('base64url'), pushAuthKey: this.auth.toString('base64url') };
  }

  /** Decrypts an aes128gcm push body (RFC 8188 §2, keys per RFC 8291 §3.4) into its JSON. */
  decrypt(body: Buffer): unknown {
    const salt = body.subarray(0, 16);
    const recordSize = body.readUInt32BE(16);
    const idLength = body[20]!;
    const senderKey = body.subarray(21, 21 + idLength);
    const records = body.subarray(21 + idLength);
    if (records.length > recordSize) throw new Error('a push of one record was expected');
    const shared = this.ecdh.computeSecret(senderKey);
    const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), this.ecdh.getPublicKey(), senderKey]);
    const ikm = Buffer.from(hkdfSync('sha256', shared, this.auth, keyInfo, 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(records.subarray(records.length - 16));
    const padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
    // The last record ends with the delimiter 0x02, then zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (padded[end] !== 2) throw new Error('missing last-record delimiter');
    return JSON.parse(padded.subarray(0, end).toString('utf8'));
  }
}

/**
 * Checks a push's VAPID Authorization (RFC 8292 §3): `vapid t=<ES256 JWT>, k=<public key>`, the JWT
 * signed by k, for this origin, not expired. Returns k.
 */
export function checkVapid(header: string | undefined, origin: string, nowSeconds: number): string {
  const m = /^vapid t=([^,]+), k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`not a VAPID Authorization: ${header}`);
  const [, jwt, k] = m as unknown as [string, string, string];
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(k, 'base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
  if (!verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) throw new Error('VAPID signature does not verify');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { aud: string; exp: number; sub: string };
  if (claims.aud !== origin) throw new Error(`VAPID aud ${claims.aud}, expected ${origin}`);
  if (!(claims.exp > nowSeconds)) throw new Error('VAPID token expired');
  return k;
}

export class PushService {
  readonly received: ReceivedPush[] = [];
  /** Per path: the status to answer, and a delay before answering. */
  readonly behaviour = new Map<string, { status?: number; delayMs?: number }>();
  private server: Server | undefined;
  private dir = mkdtempSync(join(tmpdir(), 'tessera-push-'));
  /** The certificate's file, for PUSH_CA_FILE. */
  readonly caFile = join(this.dir, 'cert.pem');
  origin = '';

  async start(): Promise<string> {
    const keyFile = join(this.dir, 'key.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', this.caFile,
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' });
    this.server = createServer({ key: readFileSync(keyFile), cert: readFileSync(this.caFile) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
        const b = this.behaviour.get(path) ?? {};
        setTimeout(() => {
          res.statusCode = b.status ?? 201;
          res.end();
        }, b.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `https://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this.origin;
  }

  /** The server settings that allow and trust this service (as an operator's private push service would be). */
  env(): Record<string, string> {
    return { PUSH_ALLOWED_HOSTS: this.host, PUSH_CA_FILE: this.caFile };
  }

  /** The host entry for PUSH_ALLOWED_HOSTS. */
  get host(): string {
    return this.origin.replace('https://', '');
  }

  /** A new subscription on this service. */
  subscribe(): Subscriber {
    return new Subscriber(`${this.origin}/wpush/${randomBytes(8).toString('hex')}`);
  }

  /** Pushes received for a subscriber, decrypted; null for a push without payload. */
  pushesFor(s: Subscriber): unknown[] {
    const path = new URL(s.endpoint).pathname;
    return this.received.filter((r) => r.path === path).map((r) => (r.body.length ? s.decrypt(r.body) : null));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
