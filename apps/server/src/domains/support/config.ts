import { ConfigError, defineConfig, str, type ConfigValues } from '../../config-schema.js';
import { checkWebhookTarget, webhookUrl } from '../../senders/webhook/target-config.js';

// Support tickets (POST /support/ticket): forwarded to a helpdesk through a signed webhook.


export const supportConfig = defineConfig({
  webhookUrl: {
    env: 'SUPPORT_WEBHOOK_URL', default: '', defaultText: '(none: support tickets are off)', parse: webhookUrl,
    description: 'Where support tickets are POSTed (https in production; JSON, event `support.ticket`, signed with SUPPORT_WEBHOOK_SECRET in the `Tessera-Signature` header; retried until it answers 2xx). Unset: POST /support/ticket answers 503/202.',
  },
  webhookSecret: {
    env: 'SUPPORT_WEBHOOK_SECRET', secret: true, optional: true, default: '', parse: str,
    description: 'HMAC-SHA256 key of the support webhook\'s signature (at least 32 characters; required with SUPPORT_WEBHOOK_URL). Share it with the helpdesk bridge only.',
  },
  secret: {
    env: 'SUPPORT_SECRET', secret: true, optional: true, default: '', parse: str,
    description: 'Lets a trusted helpdesk front end file tickets without a session: sent in the `Tessera-Support-Secret` header (compared in constant time). At least 32 characters. Unset: only confirmed sessions can file tickets.',
  },
});

export type SupportConfig = ConfigValues<typeof supportConfig>;

/** The webhook's URL and secret go together (and https in production). */
export function checkSupportConfig(config: SupportConfig, production: boolean): void {
  checkWebhookTarget('SUPPORT', config, production);
  if (config.secret && config.secret.length < 32) throw new ConfigError('SUPPORT_SECRET must be at least 32 characters (use e.g. `openssl rand -hex 32`)');
}
