import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { ConfigValues } from '../../config-schema.js';
import type { smsConfig } from './config.js';
import { SmsOutboxSender, TwilioSmsSender, type SmsSender } from './sender.js';

export { smsConfig } from './config.js';
export { SmsDeliveryError, SmsOutboxSender, TwilioSmsSender, type SmsMessage, type SmsSender } from './sender.js';

/**
 * The SMS transport the configuration asks for: Twilio when TWILIO_ACCOUNT_SID is set; else the
 * outbox under $DATA_DIR/sms-outbox outside production; in production, none (null): the recovery
 * phone routes answer 503/202 rather than write codes meant for a phone to the server's disk.
 */
export function smsSenderFrom(config: ConfigValues<typeof smsConfig>, env: { dataDir: string; production: boolean; log: FastifyBaseLogger }): SmsSender | null {
  if (config.twilioAccountSid) {
    return new TwilioSmsSender({
      accountSid: config.twilioAccountSid, authToken: config.twilioAuthToken,
      from: config.twilioFrom || undefined, messagingServiceSid: config.twilioMessagingServiceSid || undefined,
      apiUrl: config.twilioApiUrl || undefined,
    });
  }
  if (env.production) return null;
  return new SmsOutboxSender(join(env.dataDir, 'sms-outbox'), env.log, true);
}
