import { defineConfig, str } from '../../config-schema.js';

/** Outgoing SMS (the recovery phone's codes). */
export const smsConfig = defineConfig({
  twilioAccountSid: {
    env: 'TWILIO_ACCOUNT_SID', default: '', parse: str,
    description: 'Twilio account SID (`AC…`). With TWILIO_AUTH_TOKEN and TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID, SMS go through Twilio. Empty: outside production SMS are written to $DATA_DIR/sms-outbox; in production the recovery phone routes answer 503/202 (feature not enabled).',
  },
  twilioAuthToken: {
    // Not `secret: true`: that would make it required in production, where SMS are optional.
    env: 'TWILIO_AUTH_TOKEN', default: '', parse: str,
    description: 'Secret. Twilio auth token for TWILIO_ACCOUNT_SID; required with it. Keep it out of logs and repositories like AUTH_SECRET.',
  },
  twilioFrom: {
    env: 'TWILIO_FROM', default: '', parse: str,
    description: 'The sending number (E.164) of Twilio messages. Either this or TWILIO_MESSAGING_SERVICE_SID.',
  },
  twilioMessagingServiceSid: {
    env: 'TWILIO_MESSAGING_SERVICE_SID', default: '', parse: str,
    description: 'A Twilio messaging service (`MG…`) that picks the sender; used instead of TWILIO_FROM when set.',
  },
  twilioApiUrl: {
    env: 'TWILIO_API_URL', default: '', parse: str, defaultText: "Twilio's own API",
    description: 'Send the Twilio SDK\'s requests to this origin instead of api.twilio.com (a local fake in tests, or an egress proxy). Leave empty in production.',
  },
});
