import { hash } from 'node:crypto';

// Opaque OAuth secrets (access and refresh tokens, codes, client secrets) are 32 random bytes as
// hex, and only their SHA-256 is stored (protocol.md §8.1).

/** An opaque token, code or client secret: 32 bytes as hex. */
export const HEX64 = /^[0-9a-fA-F]{64}$/;

/** protocol.md §8.1: access tokens are stored only as SHA-256(token). */
export function hashToken(token: string): string {
  return hash('sha256', Buffer.from(token, 'hex'), 'hex');
}
