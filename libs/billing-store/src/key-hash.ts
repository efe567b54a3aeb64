import { createHmac } from 'node:crypto';

/**
 * HMAC-SHA-256 of an API key under the server secret. Only this hash is stored; a
 * lookup hashes the presented key and finds the row by index, so the comparison is
 * constant-time by construction (no secret-dependent early exit on our side).
 */
export function hashApiKey(secret: string, apiKey: string): Buffer {
  return createHmac('sha256', secret).update(apiKey, 'utf8').digest();
}
