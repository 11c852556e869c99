import { isIPv4, isIPv6 } from 'node:net';

// Security events keep the network a request came from, never its address: an IPv4 address is cut
// to its /24, an IPv6 address to its /48 (an IPv4-mapped IPv6 address counts as IPv4). That is
// enough for the account's owner to recognise a provider or a place, and too little to single out a
// device or a household, so what is kept for months is less personal than what the request carried.

/** The network of `address` in CIDR notation (`203.0.113.0/24`, `2001:db8:5::/48`); null when it is no IP address. */
export function networkOf(address: string): string | null {
  const ip = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  const v4 = mapped ? mapped[1]! : ip;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(ip)) return null;
  return `${groupsOf(ip).slice(0, 3).map((g) => g.toString(16)).join(':')}::/48`;
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
