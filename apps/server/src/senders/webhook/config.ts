import { defineConfig, int, type ConfigValues } from '../../config-schema.js';

// How senders/webhook retries: the support and newsletter webhooks (their URLs and signing
// secrets are in their domains' configuration) share these.

export const webhookConfig = defineConfig({
  timeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS', default: 10_000, parse: int(100, 120_000),
    description: 'How long one webhook delivery may take (connection to the end of the answer). Past it the attempt counts as failed and is retried.',
  },
  retryBaseSeconds: {
    env: 'WEBHOOK_RETRY_BASE_SECONDS', default: 30, parse: int(1, 86_400),
    description: 'Wait before the first retry of a failed webhook delivery; each further failure doubles it, up to WEBHOOK_RETRY_MAX_SECONDS. Deliveries are jobs of the job queue: kept in the database and retried until the receiver answers 2xx, also after a restart, for up to JOBS_MAX_ATTEMPTS attempts (then kept as dead: `npm run admin -- jobs list --state dead`).',
  },
  retryMaxSeconds: {
    env: 'WEBHOOK_RETRY_MAX_SECONDS', default: 3600, parse: int(1, 604_800),
    description: 'Longest wait between two attempts of one webhook delivery.',
  },
});

export type WebhookConfig = ConfigValues<typeof webhookConfig>;
