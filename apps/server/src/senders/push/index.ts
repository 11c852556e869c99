export { pushConfig } from './config.js';
export { PushQueue, type PushJob, type PushQueueOptions, type PushSubscription } from './queue.js';
export { loadVapidKeys, vapidKeysFrom, type VapidKeys } from './vapid.js';
