import type { Session } from '../sessions/index.js';
import { describeDevice } from '../sessions/index.js';
import type { AttachedClient } from './schemas.js';
import type { Device } from './store.js';
import { formatTimeAgo } from './time-format.js';

// GET /account/attached_clients: one entry per thing that holds access to the account. Today the
// sources are sessions and the devices registered on them; OAuth refresh tokens (with or without a
// device) become a third list of entries, merged in by `mergeAttachedClients` on the device id.

/** At most this many entries, most recently used first (spec 1 §9). */
export const ATTACHED_CLIENTS_MAX = 500;

/** The wire entry without its formatted times: what each source contributes and the merge joins. */
export type AttachedClientEntry = Omit<AttachedClient, 'createdTimeFormatted' | 'lastAccessTimeFormatted' | 'approximateLastAccessTime' | 'approximateLastAccessTimeFormatted'>;

/** "Firefox 120.0" from the session's User-Agent facts; empty when unknown. */
export function userAgentOf(s: Session): string {
  return [s.ua.browser, s.ua.browserVersion].filter(Boolean).join(' ');
}

/** The entries of the account's sessions, each with the device registered on it and the provider that opened it. */
export function sessionEntries(sessions: Session[], devices: Device[], currentSessionId: string, providers: ReadonlyMap<string, string> = new Map()): AttachedClientEntry[] {
  const bySession = new Map(devices.filter((d) => d.sessionId).map((d) => [d.sessionId!, d]));
  return sessions.map((s) => {
    const device = bySession.get(s.id);
    return {
      clientId: null,
      deviceId: device?.id ?? null,
      sessionTokenId: s.id,
      refreshTokenId: null,
      isCurrentSession: s.id === currentSessionId,
      deviceType: device?.type ?? s.ua.deviceType,
      name: device?.name ?? describeDevice(s.ua),
      createdTime: device ? Math.min(device.createdAt, s.createdAt) : s.createdAt,
      lastAccessTime: s.lastAccessTime,
      scope: null,
      location: s.location ?? {},
      userAgent: userAgentOf(s),
      os: s.ua.os,
      providerId: providers.get(s.id) ?? null,
    };
  });
}

/** The entries of the account's OAuth refresh tokens: one per token, named by its client. */
export function refreshTokenEntries(tokens: { id: string; clientId: string; clientName: string; scope: string[]; createdAt: number; lastUsedAt: number }[]): AttachedClientEntry[] {
  return tokens.map((t) => ({
    clientId: t.clientId, deviceId: null, sessionTokenId: null, refreshTokenId: t.id, isCurrentSession: false, deviceType: null,
    name: t.clientName, createdTime: t.createdAt, lastAccessTime: t.lastUsedAt, scope: t.scope, location: {}, userAgent: '', os: null, providerId: null,
  }));
}

const later = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
const earlier = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/**
 * Joins entries from several sources: entries naming the same device become one (each key takes
 * the first non-null value; times the earliest creation and latest use). Then keeps the entries
 * used since `idleSince` (the caller's own always), most recently used first, at most 500.
 */
export function mergeAttachedClients(sources: AttachedClientEntry[][], idleSince: number | undefined): AttachedClientEntry[] {
  const merged: AttachedClientEntry[] = [];
  const byDevice = new Map<string, AttachedClientEntry>();
  for (const entry of sources.flat()) {
    const same = entry.deviceId ? byDevice.get(entry.deviceId) : undefined;
    if (!same) {
      const copy = { ...entry };
      merged.push(copy);
      if (copy.deviceId) byDevice.set(copy.deviceId, copy);
      continue;
    }
    for (const key of ['clientId', 'sessionTokenId', 'refreshTokenId', 'deviceType', 'name', 'scope', 'os', 'providerId'] as const) {
      (same as unknown as Record<string, unknown>)[key] ??= entry[key];
    }
    same.userAgent ||= entry.userAgent;
    same.isCurrentSession ||= entry.isCurrentSession;
    same.createdTime = earlier(same.createdTime, entry.createdTime);
    same.lastAccessTime = later(same.lastAccessTime, entry.lastAccessTime);
  }
  return merged
    .filter((e) => e.isCurrentSession || idleSince === undefined || (e.lastAccessTime ?? 0) >= idleSince)
    .sort((a, b) => (b.lastAccessTime ?? 0) - (a.lastAccessTime ?? 0))
    .slice(0, ATTACHED_CLIENTS_MAX);
}

/** The merged entries as the wire shows them: every key present, times also as "5 minutes ago" in `locale`. */
export function formatAttachedClients(entries: AttachedClientEntry[], now: number, locale: string): AttachedClient[] {
  const ago = (t: number | null) => (t === null ? null : formatTimeAgo(t, now, locale));
  return entries.map((e) => ({
    ...e,
    createdTimeFormatted: ago(e.createdTime),
    lastAccessTimeFormatted: ago(e.lastAccessTime),
    approximateLastAccessTime: null,
    approximateLastAccessTimeFormatted: null,
  }));
}
