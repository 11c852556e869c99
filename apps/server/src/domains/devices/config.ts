import { defineConfig, int } from '../../config-schema.js';
import { parsePushHosts, type PushHost } from './push-hosts.js';

/** Devices and Web Push. */
export const devicesConfig = defineConfig({
  pushAllowedHosts: {
    env: 'PUSH_ALLOWED_HOSTS',
    default: parsePushHosts('updates.push.services.mozilla.com,fcm.googleapis.com,*.push.apple.com,*.notify.windows.com'),
    defaultText: 'updates.push.services.mozilla.com,fcm.googleapis.com,*.push.apple.com,*.notify.windows.com',
    parse: parsePushHosts,
    description: 'Comma-separated hosts a device\'s `pushCallback` may point at: the Web Push services of Firefox, Chrome, Safari and Edge by default. `*.example.com` allows every subdomain; `host:port` allows that port only (without a port, only 443). The server sends pushes to these hosts and nowhere else, so a device cannot make it call an arbitrary address.',
  },
  commandsPendingMax: {
    env: 'DEVICE_COMMANDS_PENDING_MAX', default: 100, parse: int(1, 10_000),
    description: 'Commands that may wait for one device (sent with `/account/devices/invoke_command`, not yet past their ttl); one more is refused with 429/114 and `retryAfter` until the oldest expires. Each command also counts against the `invokeDeviceCommand` rate limit of its sender.',
  },
});

export type { PushHost };
