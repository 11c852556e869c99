import { defineConfig, str } from '../../config-schema.js';

/** Outgoing mail. */
export const mailConfig = defineConfig({
  smtpUrl: {
    env: 'SMTP_URL', default: '', parse: str,
    description: '`smtp://user:pass@host:587` or `smtps://…:465`. Empty: messages go to the local outbox under $DATA_DIR/outbox.',
  },
  from: { env: 'MAIL_FROM', default: 'Tessera <no-reply@tessera.localhost>', parse: str, description: 'The From header of every message.' },
  contentUrl: {
    env: 'CONTENT_URL', default: '', parse: str, defaultText: '$PUBLIC_URL',
    description: 'Origin of the account web app that links in emails point to.',
  },
});
