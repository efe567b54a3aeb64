import { ConfigError } from '@gridlab/errors';
import { bool, int, list, oneOf, str } from './fields';
import { loadConfig } from './load-config';

const schema = {
  DATABASE_URL: str({ secret: true }),
  PORT: int({ default: 8080, min: 1, max: 65535 }),
  DEBUG: bool({ default: false }),
  POLICY: oneOf(['warn', 'revoke'] as const, { default: 'warn' }),
  PROXIES: list({ default: [] }),
};

describe('loadConfig', () => {
  it('applies defaults and parses typed values', () => {
    const config = loadConfig(schema, { DATABASE_URL: 'postgres://x', PORT: '9000', PROXIES: 'a, b,' });
    expect(config).toEqual({ DATABASE_URL: 'postgres://x', PORT: 9000, DEBUG: false, POLICY: 'warn', PROXIES: ['a', 'b'] });
  });

  it('lists every bad key at once without echoing values', () => {
    let caught: unknown;
    try {
      loadConfig(schema, { PORT: 'hunter2', DEBUG: 'maybe', POLICY: 'ban' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.errors?.map((e) => e.path)).toEqual(['DATABASE_URL', 'PORT', 'DEBUG', 'POLICY']);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('maybe');
  });

  it('rejects integers outside their range', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: 'x', PORT: '70000' })).toThrow(/PORT must be <= 65535/);
  });
});
