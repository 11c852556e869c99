import type { Session } from '../sessions/index.js';
import { userAgentOf } from './attached-clients.js';
import type { ListedDevice } from './schemas.js';
import type { Device } from './store.js';
import { formatTimeAgo } from './time-format.js';

// The device lists as the routes show them, built from the account's sessions and devices (both
// read by the service): the register/update reply, GET /account/devices and the deprecated
// GET /account/sessions. Attached clients have their own file (their sources merge).

/** A device as POST /account/device replies with it. */
export function deviceReply(d: Device) {
  return {
    id: d.id,
    createdAt: d.createdAt,
    name: d.name,
    type: d.type,
    pushCallback: d.pushCallback,
    pushPublicKey: d.pushPublicKey,
    pushAuthKey: d.pushAuthKey,
    pushEndpointExpired: d.pushEndpointExpired,
    availableCommands: d.availableCommands,
  };
}

/**
 * GET /account/devices: each device with its session's last use (its registration time when the
 * session is gone), most recently used first; those idle since `idleSince` are left out, never the
 * caller's own. Times also relative, in `locale`.
 */
export function listedDevices(devices: Device[], sessions: Session[], currentSessionId: string, idleSince: number | undefined, now: number, locale: string): ListedDevice[] {
  const bySession = new Map(sessions.map((s) => [s.id, s]));
  return devices
    .map((d): ListedDevice => {
      const s = d.sessionId ? bySession.get(d.sessionId) : undefined;
      const { createdAt: _createdAt, ...reply } = deviceReply(d);
      const lastAccessTime = s?.lastAccessTime ?? d.createdAt;
      return {
        ...reply,
        type: d.type ?? s?.ua.deviceType ?? null,
        isCurrentDevice: d.sessionId === currentSessionId,
        lastAccessTime,
        lastAccessTimeFormatted: formatTimeAgo(lastAccessTime, now, locale),
        approximateLastAccessTime: null,
        approximateLastAccessTimeFormatted: null,
        location: s?.location ?? {},
      };
    })
    .filter((d) => d.isCurrentDevice || idleSince === undefined || d.lastAccessTime >= idleSince)
    .sort((a, b) => b.lastAccessTime - a.lastAccessTime);
}

/** GET /account/sessions (deprecated): each session by its handle, with the device on it. */
export function deprecatedSessionList(sessions: Session[], devices: Device[], currentSessionId: string) {
  const bySession = new Map(devices.filter((d) => d.sessionId).map((d) => [d.sessionId!, d]));
  return sessions.map((s) => {
    const d = bySession.get(s.id);
    return {
      id: s.id,
      createdTime: s.createdAt,
      lastAccessTime: s.lastAccessTime,
      userAgent: userAgentOf(s),
      os: s.ua.os,
      deviceType: d?.type ?? s.ua.deviceType,
      isCurrentDevice: s.id === currentSessionId,
      isDevice: d !== undefined,
      deviceId: d?.id ?? null,
      deviceName: d?.name ?? null,
      deviceAvailableCommands: d?.availableCommands ?? null,
      location: s.location ?? {},
    };
  });
}
