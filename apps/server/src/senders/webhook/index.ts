export { webhookConfig, type WebhookConfig } from './config.js';
export { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook, verifyWebhook } from './sign.js';
export { timerScheduler, WebhookSender, type Scheduler, type WebhookSenderDeps, type WebhookTarget } from './sender.js';
