import { useCallback, useEffect, useState } from 'preact/hooks';

export type Load<T> = { readonly state: 'loading' } | { readonly state: 'error'; readonly error: unknown } | { readonly state: 'ok'; readonly value: T };

/** Runs `load` on mount and whenever `deps` change (and every `refreshMs` if given); the latest answer wins. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[], refreshMs?: number): [Load<T>, () => void] {
  const [state, setState] = useState<Load<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    const abort = new AbortController();
    load(abort.signal).then(
      (value) => !abort.signal.aborted && setState({ state: 'ok', value }),
      (error: unknown) => !abort.signal.aborted && setState({ state: 'error', error }),
    );
    const timer = refreshMs === undefined ? undefined : setInterval(() => setTick((n) => n + 1), refreshMs);
    return () => {
      abort.abort();
      clearInterval(timer);
    };
    // `deps` lists what `load` reads (the caller's contract).
  }, [...deps, tick]);
  return [state, reload];
}

/** Actions on a list's items: which item has one under way, the last one's failure, and `act` (the list is read again after each success). */
export function useActions(reload: () => void): { busy: string | null; failure: unknown; act: (id: string, call: () => Promise<unknown>) => Promise<void> } {
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const act = async (id: string, call: () => Promise<unknown>): Promise<void> => {
    setBusy(id);
    setFailure(null);
    try {
      await call();
      reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(null);
    }
  };
  return { busy, failure, act };
}

/** A value that changes every second (countdowns). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** The location hash as a route: `#/lab?x=1` → { path: '/lab', params }. */
export function useRoute(): { path: string; params: URLSearchParams } {
  const read = () => {
    const raw = location.hash.replace(/^#/, '') || '/';
    const [path, query] = raw.split('?', 2) as [string, string | undefined];
    return { path, params: new URLSearchParams(query ?? '') };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

