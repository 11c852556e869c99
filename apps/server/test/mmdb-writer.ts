import { mkdtempSync, writeFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A small writer of MaxMind DB files (format version 2.0), for tests: IPv4 networks → records,
// written as the format describes it — a binary search tree of 24-bit records, 16 zero bytes, the
// data section, then the metadata marker and the metadata map. Enough for the `maxmind` reader to
// open the file and find each network's record.

type Value = string | number | bigint | boolean | Value[] | { [key: string]: Value };

/** Control byte(s) of a field: type (1–15) and payload size. */
function control(type: number, size: number): Buffer {
  const parts: number[] = [];
  let sizeBits: number;
  const extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 29 + 256) {
    sizeBits = 29;
    extra.push(size - 29);
  } else if (size < 285 + 65_536) {
    sizeBits = 30;
    const n = size - 285;
    extra.push(n >> 8, n & 0xff);
  } else {
    sizeBits = 31;
    const n = size - 65_821;
    extra.push((n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  }
  if (type <= 7) parts.push((type << 5) | sizeBits);
  else parts.push(sizeBits, type - 7);
  return Buffer.from([...parts, ...extra]);
}

function uint(type: number, value: bigint, maxBytes: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0n) {
    bytes.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  if (bytes.length > maxBytes) throw new Error('integer too large');
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

/** One value in the data section's encoding (no pointers: every value written out). */
export function encode(value: Value): Buffer {
  if (typeof value === 'string') {
    const b = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, b.length), b]);
  }
  if (typeof value === 'boolean') return control(14, value ? 1 : 0);
  if (typeof value === 'bigint') return uint(9, value, 8);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) throw new Error('only unsigned integers are written');
    return value <= 0xffff ? uint(5, BigInt(value), 2) : uint(6, BigInt(value), 4);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

interface TreeNode {
  /** Index 0: the next bit is 0; 1: it is 1. A number is a data offset. */
  children: [TreeNode | number | null, TreeNode | number | null];
}

function bitsOf(ip: string): number[] {
  const n = ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  return Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(31 - i)) & 1n));
}

/** `networks`: CIDR (IPv4) → record. Later networks must not contain earlier ones. */
export function writeMmdb(networks: Record<string, Value>, databaseType = 'Tessera-Test-City'): Buffer {
  const root: TreeNode = { children: [null, null] };
  const data: Buffer[] = [];
  let dataLength = 0;
  for (const [cidr, record] of Object.entries(networks)) {
    const [ip, lengthText] = cidr.split('/');
    const length = Number(lengthText);
    if (!ip || !isIPv4(ip) || !(length >= 1 && length <= 32)) throw new Error(`not an IPv4 network: ${cidr}`);
    const offset = dataLength;
    const encoded = encode(record);
    data.push(encoded);
    dataLength += encoded.length;
    const bits = bitsOf(ip);
    let node = root;
    for (let depth = 0; depth < length - 1; depth++) {
      const bit = bits[depth]! as 0 | 1;
      let next = node.children[bit];
      if (next === null) next = node.children[bit] = { children: [null, null] };
      if (typeof next === 'number') throw new Error(`${cidr} is inside a network already written`);
      node = next;
    }
    node.children[bits[length - 1]! as 0 | 1] = offset;
  }
  // Nodes numbered breadth-first from the root (node 0).
  const nodes: TreeNode[] = [];
  const queue: TreeNode[] = [root];
  while (queue.length) {
    const node = queue.shift()!;
    nodes.push(node);
    for (const child of node.children) if (child !== null && typeof child !== 'number') queue.push(child);
  }
  const index = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;
  const record = (child: TreeNode | number | null): number =>
    child === null ? nodeCount : typeof child === 'number' ? nodeCount + 16 + child : index.get(child)!;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, i) => {
    tree.writeUIntBE(record(node.children[0]), i * 6, 3);
    tree.writeUIntBE(record(node.children[1]), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: nodeCount,
    record_size: 24,
    ip_version: 4,
    database_type: databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000n,
    description: { en: 'Written by Tessera\'s tests' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com', 'ascii'), metadata]);
}

/** A GeoIP2 City-shaped record. */
export function cityRecord(r: { city?: string; country: string; countryCode: string; state?: string; stateCode?: string }): Value {
  return {
    ...(r.city ? { city: { names: { en: r.city, de: `${r.city} (de)` } } } : {}),
    country: { iso_code: r.countryCode, names: { en: r.country } },
    ...(r.state ? { subdivisions: [{ iso_code: r.stateCode ?? '', names: { en: r.state } }] } : {}),
  };
}

/**
 * The tests' database, written to a temporary file: 127.0.0.0/8 (where test requests come from)
 * is Berlin, 203.0.113.0/24 San Francisco, 198.51.100.7 only Canada.
 */
export function testGeoDatabase(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tessera-geo-')), 'test-city.mmdb');
  writeFileSync(file, writeMmdb({
    '127.0.0.0/8': cityRecord({ city: 'Berlin', country: 'Germany', countryCode: 'DE', state: 'Land Berlin', stateCode: 'BE' }),
    '203.0.113.0/24': cityRecord({ city: 'San Francisco', country: 'United States', countryCode: 'US', state: 'California', stateCode: 'CA' }),
    '198.51.100.7/32': cityRecord({ country: 'Canada', countryCode: 'CA' }),
  }));
  return file;
}

export const BERLIN = { city: 'Berlin', country: 'Germany', countryCode: 'DE', state: 'Land Berlin', stateCode: 'BE' };
