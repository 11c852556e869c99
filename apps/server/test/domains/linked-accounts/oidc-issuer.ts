import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

// A local OpenID provider for tests: its own RS256 key pair, its JWK Set served on 127.0.0.1 (the
// server is unref'd and closed by stop(), so it never outlives the suite), and id_tokens signed the
// way Google and Apple sign theirs.

export class LocalIssuer {
  private server: Server | null = null;
  private key!: CryptoKey;
  private readonly kid = `test-${Math.random().toString(36).slice(2, 10)}`;
  /** How many times the key set was fetched. */
  fetches = 0;
  url = '';

  constructor(readonly issuer: string, readonly clientId: string, private readonly now: () => number) {}

  async start(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    this.key = privateKey;
    const jwk = { ...(await exportJWK(publicKey)), kid: this.kid, alg: 'RS256', use: 'sig' };
    this.server = createServer((req, res) => {
      if (req.url !== '/keys') {
        res.writeHead(404).end();
        return;
      }
      this.fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    this.server.unref();
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${port}/keys`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
  }

  /**
   * An id_token for `sub` valid for 10 minutes from the test clock; `claims` add or override
   * claims, `key` signs with another key (under this issuer's kid).
   */
  async idToken(sub: string, claims: JWTPayload = {}, options: { key?: CryptoKey; lifetimeSeconds?: number } = {}): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    // A unique jti, as real providers' tokens differ from one sign-in to the next (RS256 signatures
    // are deterministic: the same claims would give the same token, which the server spends once).
    const jti = randomBytes(12).toString('base64url');
    return new SignJWT({ iss: this.issuer, aud: this.clientId, sub, iat, exp: iat + (options.lifetimeSeconds ?? 600), jti, email_verified: true, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: this.kid, typ: 'JWT' })
      .sign(options.key ?? this.key);
  }

  /** Apple's server-to-server notification: a JWT whose `events` claim is a JSON string. */
  async notification(events: Record<string, unknown>): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ events: JSON.stringify({ event_time: iat * 1000, ...events }) })
      .setProtectedHeader({ alg: 'RS256', kid: this.kid })
      .setIssuer(this.issuer)
      .setAudience(this.clientId)
      .setIssuedAt(iat)
      .setJti(`n-${Math.random().toString(36).slice(2)}`)
      .sign(this.key);
  }
}

/** An unsigned token (`alg: none`) with the given claims. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** Another key pair: tokens it signs carry a signature the issuer's key set does not verify. */
export async function strangerKey(): Promise<CryptoKey> {
  return (await generateKeyPair('RS256')).privateKey;
}
