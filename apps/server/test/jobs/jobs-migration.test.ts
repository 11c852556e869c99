import { describe, expect, it } from 'vitest';
import { MIGRATION_DIALECTS, migrationStep } from '../storage/migration-step.js';

// Migration 0023_add_jobs on every dialect: deliveries waiting in the webhook outbox become jobs of
// the queue with the same id (receivers de-duplicate by it), attempts, due time and last error;
// migrating down gives them back.

const TARGET = '0023_add_jobs';

describe.each(MIGRATION_DIALECTS)('migration 0023_add_jobs (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('moves waiting webhook deliveries into the jobs table, and back down', async () => {
    await step.toBefore();
    const id = 'd'.repeat(32);
    const body = JSON.stringify({ ticket: 't'.repeat(32), email: 'someone@example.com', fields: { topic: 'ü' } });
    await step.db.insertInto('webhook_deliveries').values({
      id, target: 'support', event: 'support.ticket', payload: body, attempts: 4, next_attempt_at: 5_000, last_error: 'HTTP 503', created_at: 1_000,
    }).execute();
    await step.toTarget();
    const [job] = await step.storage.db.selectFrom('jobs').selectAll().execute();
    expect(job).toMatchObject({ id, kind: 'webhook.support', dedupe_key: null, state: 'pending', attempts: 4, last_error: 'HTTP 503' });
    expect(Number(job!.run_at)).toBe(5_000);
    expect(JSON.parse(job!.payload)).toEqual({ event: 'support.ticket', body: JSON.parse(body) });
    // What the sender signs and sends is the body as it was written.
    expect(JSON.stringify((JSON.parse(job!.payload) as { body: unknown }).body)).toBe(body);
    await expect(step.db.selectFrom('webhook_deliveries').selectAll().execute()).rejects.toThrow();

    await step.toBefore();
    const [back] = await step.db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(back).toMatchObject({ id, target: 'support', event: 'support.ticket', payload: body, attempts: 4, last_error: 'HTTP 503' });
    await expect(step.db.selectFrom('jobs').selectAll().execute()).rejects.toThrow();
    await step.toTarget();
  });
});
