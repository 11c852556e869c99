import { appError } from '@tessera/errors';
import type { RequestContext } from '../../platform/request-context.js';
import { describeDevice, isSessionVerified, meetsMinimumAal, type Session, type SessionWithAccount } from '../sessions/index.js';
import { deleteExpiredCommands, insertCommand, listCommands, pendingCommands } from './commands.js';
import { pushEvents } from './push-events.js';
import type { DevicePushes } from './pushes.js';
import type { NotifyPayload } from './schemas.js';
import type { DevicesDeps } from './service.js';
import { findDevice, findDeviceOfSession, listDevices, lockDevice } from './store.js';

// What an account's devices send each other through the server: commands stored for one device
// and pushed to it, notifications pushed as they are, and a sign-in's confirmation code pushed to
// the devices that can show it.

/** Largest command payload, as JSON (spec 1 §5). */
export const COMMAND_PAYLOAD_MAX = 2048;
/** A command's ttl when none is asked for: the largest allowed (spec 1 §9). */
export const COMMAND_TTL_MAX_MS = 10_000_000;

function tooLarge(key: string, message: string): never {
  throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [key], rule: 'maxLength', message } }, `Invalid parameter in request body: ${message}`);
}

export class DeviceMessages {
  constructor(private readonly deps: DevicesDeps, private readonly pushes: DevicePushes) {}

  /**
   * POST /account/devices/invoke_command: stores the command for the target device (one of the
   * account's, advertising that command) until `ttlMs` passes, and pushes it the news.
   */
  async invokeCommand(session: SessionWithAccount, input: { target: string; command: string; payload: Record<string, unknown>; ttl?: number | undefined }) {
    const { db, clock, sessions } = this.deps;
    const payload = JSON.stringify(input.payload);
    if (payload.length > COMMAND_PAYLOAD_MAX) tooLarge('payload', `payload must be at most ${COMMAND_PAYLOAD_MAX} characters as JSON`);
    const target = await findDevice(db, session.uid, input.target.toLowerCase());
    if (!target) throw appError('DEVICE_UNKNOWN');
    if (!Object.hasOwn(target.availableCommands, input.command)) throw appError('DEVICE_COMMAND_UNAVAILABLE');
    // Issue 22: a command (a tab, say, encrypted to the keys the device published) goes only to a
    // device whose session is confirmed at the account's AAL: a sign-in that proved the password
    // only may register a device advertising commands, but is sent nothing through it.
    const targetSession = target.sessionId ? await sessions.find(db, target.sessionId) : null;
    if (!targetSession || !meetsMinimumAal({ ...targetSession, account: session.account })) {
      throw appError('DEVICE_COMMAND_UNAVAILABLE', {}, 'Unavailable device command: the target device\'s session is not confirmed yet');
    }
    const now = clock.now();
    const sender = await findDeviceOfSession(db, session.id);
    const ttlMs = input.ttl ?? COMMAND_TTL_MAX_MS;
    // At most DEVICE_COMMANDS_PENDING_MAX wait for one device; the next is refused until the first
    // of them expires. Counted and stored under the target's row lock: requests at once cannot
    // both take the last place.
    const index = await db.transaction().execute(async (trx) => {
      await lockDevice(trx, session.uid, target.id);
      await deleteExpiredCommands(trx, session.uid, target.id, now);
      const pending = await pendingCommands(trx, session.uid, target.id, now);
      if (pending.count >= this.deps.commandsPendingMax) {
        const retryAfter = Math.max(1, Math.ceil(((pending.firstExpiry ?? now) - now) / 1000));
        throw appError('THROTTLED', { retryAfter }, `Client has sent too many requests: ${pending.count} commands already wait for this device; retry after ${retryAfter} s`);
      }
      return insertCommand(trx, {
        uid: session.uid, deviceId: target.id, command: input.command, payload, sender: sender?.id ?? null, createdAt: now, expiresAt: now + ttlMs,
      });
    });
    const url = `${this.deps.commandsUrl}?index=${index}&limit=1`;
    this.pushes.pushTo([target], pushEvents.commandReceived({ command: input.command, index, sender: sender?.id ?? null, url }), Math.floor(ttlMs / 1000));
    return {};
  }

  /** GET /account/device/commands: the calling device's live commands from `index` on, oldest first. */
  async commands(session: Session, index: number, limit: number) {
    const { db, clock } = this.deps;
    const device = await findDeviceOfSession(db, session.id);
    if (!device) throw appError('DEVICE_UNKNOWN');
    const now = clock.now();
    await deleteExpiredCommands(db, session.uid, device.id, now);
    const found = await listCommands(db, session.uid, device.id, index, now, limit);
    const messages = found.slice(0, limit).map((c) => ({ index: c.index, data: { command: c.command, payload: c.payload, sender: c.sender } }));
    return { index: messages.at(-1)?.index ?? index, last: found.length <= limit, messages };
  }

  /**
   * POST /account/devices/notify: pushes the payload (one of the shapes clients send each other,
   * checked by the route's schema) to the named devices of the account, or all but the excluded.
   */
  async notify(session: Session, input: { to: 'all' | string[]; excluded?: string[] | undefined; payload: NotifyPayload; TTL?: number | undefined }) {
    const devices = await listDevices(this.deps.db, session.uid);
    const ids = new Set((input.to === 'all' ? devices.map((d) => d.id) : input.to).map((id) => id.toLowerCase()));
    for (const id of input.excluded ?? []) ids.delete(id.toLowerCase());
    this.pushes.pushTo(devices.filter((d) => ids.has(d.id)), input.payload, input.TTL ?? 0);
    return {};
  }

  /**
   * POST /session/verify/send_push: the unconfirmed session's confirmation code, pushed to the
   * account's devices on confirmed sessions, so that one of them can show it. Nothing is sent for
   * a confirmed session; how many devices were reached is in the reply.
   */
  async sendVerifyPush(session: Session) {
    const { db, sessions, confirmations, clock } = this.deps;
    if (isSessionVerified(session)) return { sent: 0 };
    const all = await sessions.listOf(db, session.uid);
    const confirmed = new Set(all.filter((s) => s.id !== session.id && isSessionVerified(s)).map((s) => s.id));
    const targets = (await listDevices(db, session.uid)).filter((d) => d.sessionId && confirmed.has(d.sessionId) && d.pushCallback && !d.pushEndpointExpired);
    if (!targets.length) return { sent: 0 };
    const code = await confirmations.codeForSession(session);
    this.pushes.pushTo(targets, pushEvents.verifyLogin({ code, device: describeDevice(session.ua), at: clock.now() }), this.deps.codeLifetimeSeconds);
    return { sent: targets.length };
  }

  /** POST /session/verify/verify_push: the code another device showed confirms this session. */
  verifyPush(session: Session, code: string, ctx: RequestContext, onNoticeFailure: (err: unknown) => void): Promise<void> {
    return this.deps.confirmations.confirmSession(session, code, ctx, onNoticeFailure);
  }
}
