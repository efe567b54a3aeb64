import { ConfigError, type FieldError } from '@gridlab/errors';
import type { Field } from './fields';

export type Env = Readonly<Record<string, string | undefined>>;
export type ConfigSchema = Readonly<Record<string, Field<unknown>>>;
export type ConfigOf<S extends ConfigSchema> = { readonly [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/**
 * Parses `env` against `schema`. Throws one ConfigError listing every missing or invalid
 * key with the reason, never the offending value of a secret (nor of anything else:
 * a mistyped secret in the wrong variable must not leak either).
 */
export function loadConfig<S extends ConfigSchema>(schema: S, env: Env): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [key, spec] of Object.entries(schema)) {
    const raw = env[key];
    if (raw === undefined || raw === '') {
      if (spec.default === undefined) errors.push({ path: key, message: 'is required' });
      else out[key] = spec.default;
      continue;
    }
    try {
      out[key] = spec.parse(raw);
    } catch (error) {
      errors.push({ path: key, message: error instanceof Error ? error.message : 'is invalid' });
    }
  }
  if (errors.length > 0) {
    const list = errors.map((e) => `${e.path} ${e.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${list}`, { errors });
  }
  return out as ConfigOf<S>;
}
