export { webhookConfig, type WebhookConfig } from './config.js';
export { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook, verifyWebhook } from './sign.js';
export { webhookKind, WebhookSender, type WebhookSenderDeps, type WebhookTarget } from './sender.js';
export { timerScheduler, type Scheduler } from '../../jobs/index.js';
