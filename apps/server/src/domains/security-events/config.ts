import { defineConfig, int } from '../../config-schema.js';

/** How long security events are kept, and how many of one kind per account. */
export const securityEventsConfig = defineConfig({
  retentionDays: {
    env: 'SECURITY_EVENTS_RETENTION_DAYS', default: 90, parse: int(1, 3650),
    description: 'Security events older than this are no longer listed by `GET /v1/securityEvents` and are deleted (a sweep runs a minute after start, then hourly); an account\'s events also go when it is deleted.',
  },
  maxPerName: {
    env: 'SECURITY_EVENTS_MAX_PER_NAME', default: 100, parse: int(1, 10_000),
    description: 'Newest events kept per account and event name; recording one more deletes the oldest of that name. Per name, so a flood of failed sign-ins cannot push the record of a sign-in or password change out.',
  },
});
