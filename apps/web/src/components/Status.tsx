import type { ComponentChildren } from 'preact';
import { describe } from '../api';
import type { Load } from '../hooks';

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>{describe(error)}</p>
      {retry !== undefined && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Renders a Load: loading text, the error with a retry, or the children for the value. */
export function Loaded<T>({ load, what, retry, children }: { load: Load<T>; what: string; retry?: () => void; children: (value: T) => ComponentChildren }) {
  if (load.state === 'loading') return <Loading what={what} />;
  if (load.state === 'error') return <ErrorBox error={load.error} {...(retry === undefined ? {} : { retry })} />;
  return <>{children(load.value)}</>;
}

export function Stat({ label, value, hint }: { label: string; value: ComponentChildren; hint?: string }) {
  return (
    <div class="stat" {...(hint === undefined ? {} : { title: hint })}>
      <div class="stat-label">{label}</div>
      <div class="stat-value">{value}</div>
    </div>
  );
}
