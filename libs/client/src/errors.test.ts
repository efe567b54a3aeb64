import { errorFromAnswer, readRateLimit, readRetryAfter } from './errors';

describe('errors from answers', () => {
  it('types a problem+json answer, with its field errors, Retry-After and rate limit', () => {
    const headers = new Headers({ 'retry-after': '3', 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '3', 'x-request-id': 'r1' });
    const body = { type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'rate_limited', detail: 'slow down', errors: [{ path: '/q', message: 'bad' }] };
    const error = errorFromAnswer(429, headers, JSON.stringify(body));
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', detail: 'slow down', retryable: true, retryAfterMs: 3000, requestId: 'r1' });
    expect(error.errors).toEqual([{ path: '/q', message: 'bad' }]);
    expect(error.rateLimit).toEqual({ limit: 10, remaining: 0, reset: 3 });
  });

  it('keeps a non-JSON answer readable and not retryable', () => {
    const error = errorFromAnswer(404, new Headers(), 'Not here');
    expect(error).toMatchObject({ status: 404, code: 'http_404', detail: 'Not here', retryable: false, retryAfterMs: null, rateLimit: null });
  });

  it('reads Retry-After as seconds or an HTTP date, and RateLimit-* only when complete', () => {
    expect(readRetryAfter(new Headers({ 'retry-after': 'Mon, 23 Nov 2026 10:00:05 GMT' }), Date.parse('2026-11-23T10:00:00Z'))).toBe(5000);
    expect(readRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(readRateLimit(new Headers({ 'ratelimit-limit': '5' }))).toBeNull();
  });
});
