import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, redactUrls } from './logger';

describe('redactUrls', () => {
  it('keeps scheme, host and port; hides user info, paths and queries that may carry credentials', () => {
    expect(redactUrls('rpc https://mainnet.helius-rpc.com/?api-key=abc123 down')).toBe('rpc https://mainnet.helius-rpc.com/[redacted] down');
    expect(redactUrls('https://user:pa55@rpc.example.com:8899/x')).toBe('https://rpc.example.com:8899/[redacted]');
    expect(redactUrls('wss://solana-mainnet.quiknode.pro/0123456789abcdef/')).toBe('wss://solana-mainnet.quiknode.pro/[redacted]');
    expect(redactUrls('http://127.0.0.1:8899')).toBe('http://127.0.0.1:8899');
    expect(redactUrls('http://127.0.0.1:8899/')).toBe('http://127.0.0.1:8899/');
    expect(redactUrls('path /api/v1/live only')).toBe('path /api/v1/live only');
  });
});

describe('createLogger', () => {
  it('redacts URLs in every string field and in error messages', () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'test' });
    logger.clear();
    logger.add(new winston.transports.Stream({ stream: new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }) }));
    logger.info('billing ready https://rpc.example.com/secret-token', {
      rpc: 'https://user:pw@rpc.example.com/?api-key=k',
      err: new Error('request to https://rpc.example.com/?api-key=k failed', { cause: new Error('at wss://rpc.example.com/t0k3n') }),
    });
    const line = lines.join('');
    expect(line).not.toMatch(/secret-token|api-key|user:pw|t0k3n/);
    expect(JSON.parse(line)).toMatchObject({
      message: 'billing ready https://rpc.example.com/[redacted]',
      rpc: 'https://rpc.example.com/[redacted]',
      err: { message: 'request to https://rpc.example.com/[redacted] failed', cause: 'at wss://rpc.example.com/[redacted]' },
    });
  });
});
