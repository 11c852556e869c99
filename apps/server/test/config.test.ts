import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config-schema.js';
import { loadConfig } from '../src/config.js';

describe('configuration from the environment', () => {
  it('has working defaults for the embedded platform', () => {
    const c = loadConfig({});
    expect(c.server).toMatchObject({ port: 9000, host: '127.0.0.1', publicUrl: 'http://localhost:9000', databaseUrl: 'sqlite:data/tessera.sqlite', logLevel: 'info' });
    expect(c.mail.smtpUrl).toBe('');
    expect(loadConfig({ PORT: '8080' }).server.publicUrl).toBe('http://localhost:8080');
  });

  it('refuses malformed values with the variable named', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT: expected an integer/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL: expected one of/);
    expect(() => loadConfig({ PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ PASSWORD_FORGOT_CODE_LENGTH: '12' })).toThrow(/expected 8 or 16/);
  });

  it('refuses to run in production without real secrets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/AUTH_SECRET must be set/);
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32) }).server.authSecret).toHaveLength(32);
  });
});
