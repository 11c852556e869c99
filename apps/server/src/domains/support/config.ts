import { defineConfig, str, type ConfigValues } from '../../config-schema.js';

// Support tickets (POST /support/ticket): forwarded to a helpdesk through a signed webhook.

const webhookUrl = (raw: string): string => {
  const u = new URL(raw);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('must be an http(s) URL');
  return u.toString();
};

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
