import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Reader, type CityResponse } from 'maxmind';
import { plainAddress } from '../../ip-address.js';

// Looking an address up in a MaxMind-format database (the `maxmind` reader, synchronous once the
// file is in memory). The record shape is GeoIP2 City's; a Country database fills the country only.

/** Where a request came from, as sessions, devices, attached clients and security events show it. */
export interface Location {
  city?: string;
  country?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode?: string;
  state?: string;
  /** The subdivision's ISO 3166-2 code without the country (e.g. `CA` for California). */
  stateCode?: string;
}

export interface Locator {
  /** Null when there is no database, the address is not in it, or it is not an address. */
  locate(ip: string): Location | null;
}

export const noLocator: Locator = { locate: () => null };

/** Names in this language, else English. */
const LANGUAGE = 'en';

type Names = Record<string, string> | undefined;
const nameOf = (names: Names): string | undefined => names?.[LANGUAGE] ?? names?.en;

export class MmdbLocator implements Locator {
  private readonly reader: Reader<CityResponse>;

  constructor(file: string) {
    this.reader = new Reader<CityResponse>(readFileSync(file));
  }

  locate(address: string): Location | null {
    const ip = plainAddress(address);
    if (!isIP(ip)) return null;
    let record: CityResponse | null;
    try {
      record = this.reader.get(ip);
    } catch {
      // An IPv6 address in an IPv4-only database.
      return null;
    }
    if (!record) return null;
    const subdivision = record.subdivisions?.[0];
    const location: Location = {
      city: nameOf(record.city?.names as Names),
      country: nameOf(record.country?.names as Names),
      countryCode: record.country?.iso_code?.toUpperCase(),
      state: nameOf(subdivision?.names as Names),
      stateCode: subdivision?.iso_code,
    };
    for (const key of Object.keys(location) as (keyof Location)[]) if (location[key] === undefined) delete location[key];
    return Object.keys(location).length ? location : null;
  }
}

/** The stored form (a column of JSON) back to a Location; `{}` when none. */
export function locationFromColumn(raw: string | null | undefined): Location {
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Location;
  } catch {
    return {};
  }
}

export function locationColumn(location: Location | null): string | null {
  return location ? JSON.stringify(location) : null;
}
