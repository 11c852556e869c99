import { isIPv4, isIPv6 } from 'node:net';

// Client addresses cut to a prefix, for the places that count or keep networks rather than
// addresses (rate limiting counts IPv6 by /64; security events keep a /24 or /48).

/** `address` without an IPv6 zone, and an IPv4-mapped IPv6 address as its IPv4 form. */
export function plainAddress(address: string): string {
  const ip = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped && isIPv4(mapped[1]!) ? mapped[1]! : ip;
}

/** The first `groups` 16-bit groups of an IPv6 address as `a:b:c::/<16 × groups>`; null when it is not IPv6. */
export function ipv6Prefix(ip: string, groups: number): string | null {
  if (!isIPv6(ip)) return null;
  return `${groupsOf(ip).slice(0, groups).map((g) => g.toString(16)).join(':')}::/${16 * groups}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad as two groups). */
function groupsOf(ip: string): number[] {
  let text = ip;
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
