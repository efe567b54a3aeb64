import { useState } from 'preact/hooks';
import { describe, session, type SessionInfo } from '../api';
import { described, Field } from '../components/Field';
import { WalletPicker } from '../components/WalletPicker';

/**
 * Sign-in: the API key is sent once to start an HttpOnly session (page scripts never keep
 * it), or the subscriber's wallet signs a Sign-In With Solana message.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const attempt = async (call: () => Promise<SessionInfo>) => {
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await call());
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="signin-title" class="narrow">
      <h1 id="signin-title">Sign in</h1>
      <p>The live board, history, events and the Strategy Lab need a subscription. The leaderboard and the subscription page are open to everyone.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const apiKey = key.trim();
          setKey('');
          void attempt(() => session.signInWithKey(apiKey));
        }}
      >
        <Field id="api-key" label="API key" hint="sent once to start a browser session; the page does not keep it" error={error ?? undefined}>
          <input {...described('api-key', true, error ?? undefined)} type="password" autoComplete="off" spellcheck={false} value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} required />
        </Field>
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <h2>Or with your wallet</h2>
      <WalletPicker
        action="Sign in"
        onConnected={(wallet) =>
          void attempt(async () => {
            const { message } = await session.challenge(wallet.address);
            return session.signInWithWallet(wallet.address, message, await wallet.signMessage(message));
          })
        }
      />
      <p>
        No key yet? <a href="#/subscribe">Subscribe</a>.
      </p>
    </section>
  );
}
