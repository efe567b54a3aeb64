import type { ComponentChildren } from 'preact';

/** A labelled input with its hint and, when the API refused it, its error (announced, linked by aria-describedby). */
export function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string | undefined; children: ComponentChildren }) {
  return (
    <div class={error === undefined ? 'field' : 'field invalid'} data-field={id}>
      <label for={id}>{label}</label>
      {children}
      {hint !== undefined && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {error !== undefined && (
        <small id={`${id}-error`} class="field-error" role="alert" data-testid={`error-${id}`}>
          {error}
        </small>
      )}
    </div>
  );
}

/** aria attributes of an input inside a Field. */
export function described(id: string, hint: boolean, error: string | undefined): Record<string, string | boolean> {
  const ids = [hint ? `${id}-hint` : '', error !== undefined ? `${id}-error` : ''].filter((s) => s !== '').join(' ');
  return { id, ...(ids === '' ? {} : { 'aria-describedby': ids }), ...(error === undefined ? {} : { 'aria-invalid': true }) };
}
