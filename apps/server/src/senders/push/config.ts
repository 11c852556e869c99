import { defineConfig, int, str } from '../../config-schema.js';
import { vapidKeysFrom } from './vapid.js';

/** Web Push: the server's VAPID identity and how pushes leave. */
export const pushConfig = defineConfig({
  vapidPrivateKey: {
    env: 'VAPID_PRIVATE_KEY', secret: true, parse: (raw) => vapidKeysFrom(raw).privateKey, default: '', defaultText: '$DATA_DIR/vapid-private-key (generated in development)',
    description: 'The server\'s VAPID private key (RFC 8292): a P-256 private key as 32 bytes base64url, e.g. from `npx web-push generate-vapid-keys`. Push services see the public key with every push. Required in production; unset outside production, one is generated once into the data folder.',
  },
  vapidSubject: {
    env: 'VAPID_SUBJECT', parse: str, default: '', defaultText: 'PUBLIC_URL when https, else mailto: the MAIL_FROM address',
    description: 'How a push service can reach the operator: an `https:` URL or a `mailto:` address, sent in every push\'s VAPID token.',
  },
  caFile: {
    env: 'PUSH_CA_FILE', parse: str, default: '',
    description: 'PEM certificates trusted, besides the system\'s, when connecting to push services: for a push service behind a private CA (and the test suite\'s local one). Empty: the system\'s only.',
  },
  queueSize: {
    env: 'PUSH_QUEUE_SIZE', default: 10_000, parse: int(1, 10_000_000),
    description: 'Pushes waiting to be sent, in process. Pushes leave the request that caused them; past this many waiting, new ones are dropped (and logged) so a slow push service never holds memory or requests.',
  },
  concurrency: {
    env: 'PUSH_CONCURRENCY', default: 16, parse: int(1, 1000),
    description: 'Pushes sent at once.',
  },
  timeoutMs: {
    env: 'PUSH_TIMEOUT_MS', default: 10_000, parse: int(100, 600_000),
    description: 'How long one push may take before it is given up (and logged).',
  },
});
