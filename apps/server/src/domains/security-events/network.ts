import { isIPv4 } from 'node:net';
import { ipv6Prefix, plainAddress } from '../../ip-address.js';

// Security events keep the network a request came from, never its address: an IPv4 address is cut
// to its /24, an IPv6 address to its /48 (an IPv4-mapped IPv6 address counts as IPv4). That is
// enough for the account's owner to recognise a provider or a place, and too little to single out a
// device or a household, so what is kept for months is less personal than what the request carried.

/** The network of `address` in CIDR notation (`203.0.113.0/24`, `2001:db8:5::/48`); null when it is no IP address. */
export function networkOf(address: string): string | null {
  const ip = plainAddress(address);
  if (isIPv4(ip)) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  return ipv6Prefix(ip, 3);
}
