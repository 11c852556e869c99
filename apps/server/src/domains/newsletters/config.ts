import { defineConfig, str, type ConfigValues } from '../../config-schema.js';
import { checkWebhookTarget, webhookUrl } from '../../senders/webhook/target-config.js';

// Newsletter choices (POST /newsletters) are kept per account and told to the mailing-list service
// through a signed webhook.


export const newslettersConfig = defineConfig({
  webhookUrl: {
    env: 'NEWSLETTER_WEBHOOK_URL', default: '', defaultText: '(none: choices are only stored)', parse: webhookUrl,
    description: 'Where newsletter changes are POSTed (https in production; JSON, events `newsletters.updated` and `account.deleted`, signed with NEWSLETTER_WEBHOOK_SECRET in the `Tessera-Signature` header; retried until it answers 2xx). Unset: the choices are stored and readable, and nothing is sent.',
  },
  webhookSecret: {
    env: 'NEWSLETTER_WEBHOOK_SECRET', secret: true, optional: true, default: '', parse: str,
    description: 'HMAC-SHA256 key of the newsletter webhook\'s signature (at least 32 characters; required with NEWSLETTER_WEBHOOK_URL).',
  },
});

export type NewslettersConfig = ConfigValues<typeof newslettersConfig>;

/** The webhook's URL and secret go together (and https in production). */
export function checkNewslettersConfig(config: NewslettersConfig, production: boolean): void {
  checkWebhookTarget('NEWSLETTER', config, production);
}
