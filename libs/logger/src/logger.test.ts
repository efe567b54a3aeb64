import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, redactUrls } from './logger';

/** A logger whose lines are collected, parsed, instead of written to the console. */
function capturing(): { logger: winston.Logger; lines: () => string } {
  const chunks: string[] = [];
  const logger = createLogger({ service: 'test' });
  logger.clear();
  logger.add(new winston.transports.Stream({ stream: new Writable({ write: (chunk, _e, done) => (chunks.push(String(chunk)), done()) }) }));
  return { logger, lines: () => chunks.join('') };
}

describe('redactUrls', () => {
  it('keeps scheme, host and port; hides user info, paths and queries that may carry credentials', () => {
    expect(redactUrls('rpc https://mainnet.helius-rpc.com/?api-key=abc123 down')).toBe('rpc https://mainnet.helius-rpc.com/[redacted] down');
    expect(redactUrls('https://user:pa55@rpc.example.com:8899/x')).toBe('https://rpc.example.com:8899/[redacted]');
    expect(redactUrls('wss://solana-mainnet.quiknode.pro/0123456789abcdef/')).toBe('wss://solana-mainnet.quiknode.pro/[redacted]');
    expect(redactUrls('http://127.0.0.1:8899')).toBe('http://127.0.0.1:8899');
    expect(redactUrls('http://127.0.0.1:8899/')).toBe('http://127.0.0.1:8899/');
    expect(redactUrls('path /api/v1/live only')).toBe('path /api/v1/live only');
    // The whole query goes, whatever its parameters are named.
    for (const name of ['api-key', 'apikey', 'api_key', 'token', 'key', 'access_token', 'auth']) {
      expect(redactUrls(`https://rpc.example.com?${name}=S3CRET&x=1`)).toBe('https://rpc.example.com/[redacted]');
      expect(redactUrls(`https://rpc.example.com/v2?cluster=main&${name}=S3CRET`)).toBe('https://rpc.example.com/[redacted]');
    }
  });

  it('redacts the credentials of database, Redis and NATS URLs as well', () => {
    expect(redactUrls('postgres://gridlab_billing:pw0rd@gridlab-pg-rw:5432/gridlab')).toBe('postgres://gridlab-pg-rw:5432/[redacted]');
    expect(redactUrls('postgresql://u:p@db/x?sslmode=require')).toBe('postgresql://db/[redacted]');
    expect(redactUrls('redis://api-gateway:pw0rd@redis-master:6379')).toBe('redis://redis-master:6379/[redacted]');
    expect(redactUrls('rediss://:pw0rd@redis:6380')).toBe('rediss://redis:6380/[redacted]');
    // A server list (NATS_URL may be one): every password hidden, the first host kept.
    const servers = redactUrls('servers nats://billing:pw0rd@nats:4222,nats://billing:pw0rd@nats-2:4222');
    expect(servers).not.toContain('pw0rd');
    expect(servers).toMatch(/^servers nats:\/\/nats:4222/);
    expect(redactUrls('nats://nats:4222')).toBe('nats://nats:4222');
  });
});

describe('createLogger', () => {
  it('redacts URLs in every string field and in error messages', () => {
    const { logger, lines } = capturing();
    logger.info('billing ready https://rpc.example.com/secret-token', {
      rpc: 'https://user:pw@rpc.example.com/?api-key=k',
      err: new Error('request to https://rpc.example.com/?api-key=k failed', { cause: new Error('at wss://rpc.example.com/t0k3n') }),
    });
    const line = lines();
    expect(line).not.toMatch(/secret-token|api-key|user:pw|t0k3n/);
    expect(JSON.parse(line)).toMatchObject({
      message: 'billing ready https://rpc.example.com/[redacted]',
      rpc: 'https://rpc.example.com/[redacted]',
      err: { message: 'request to https://rpc.example.com/[redacted] failed', cause: 'at wss://rpc.example.com/[redacted]' },
    });
  });

  it('redacts at any depth, in arrays, and in errors under any name, without changing what the caller passed', () => {
    const { logger, lines } = capturing();
    const meta = {
      endpoints: { rpc: 'https://rpc.example.com/?api-key=S3CRET', ws: ['wss://rpc.example.com/S3CRET'] },
      redis: 'redis://gw:S3CRET@redis:6379',
      nested: { headers: { authorization: 'Bearer S3CRET' } },
      failure: new Error('connect to postgres://billing:S3CRET@db:5432/gridlab refused'),
    };
    logger.warn('state', meta);
    const line = lines();
    expect(line).not.toContain('S3CRET');
    expect(JSON.parse(line)).toMatchObject({
      endpoints: { rpc: 'https://rpc.example.com/[redacted]', ws: ['wss://rpc.example.com/[redacted]'] },
      redis: 'redis://redis:6379/[redacted]',
      nested: { headers: { authorization: '[redacted]' } },
      failure: { name: 'Error', message: 'connect to postgres://db:5432/[redacted] refused' },
    });
    expect(meta.endpoints.rpc).toBe('https://rpc.example.com/?api-key=S3CRET');
    expect(meta.nested.headers.authorization).toBe('Bearer S3CRET');
  });

  it('writes a self-referencing object without looping', () => {
    const { logger, lines } = capturing();
    const loop: Record<string, unknown> = { url: 'https://u:S3CRET@h/' };
    loop['self'] = loop;
    logger.info('loop', { loop });
    expect(lines()).not.toContain('S3CRET');
    expect(lines()).toContain('[nested too deep]');
  });
});
