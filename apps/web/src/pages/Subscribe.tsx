import type { IssuedKey, SubscriptionStart } from '@gridlab/client';
import { isGridlabApiError, reissueMessage, subscribeMessage } from '@gridlab/client';
import qrcode from 'qrcode-generator';
import { useMemo, useState } from 'preact/hooks';
import { api, dashboardConfig, describe } from '../api';
import { described, Field } from '../components/Field';
import { ErrorBox, Loaded, Stat } from '../components/Status';
import { WalletPicker } from '../components/WalletPicker';
import { int, solanaPayUrl, when } from '../format';
import { useLoad } from '../hooks';
import type { ConnectedWallet } from '../wallet';

/** How long a signed redemption message stays valid (the service accepts at most an hour ahead). */
const SIGNATURE_TTL_MS = 30 * 60_000;

function Qr({ text }: { text: string }) {
  const src = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(text);
    qr.make();
    return qr.createDataURL(4, 8);
  }, [text]);
  return <img class="qr" src={src} alt="QR code of the Solana Pay payment link" width={220} height={220} data-testid="payment-qr" />;
}

function ShowKey({ issued }: { issued: IssuedKey }) {
  return (
    <div class="issued" role="status" data-testid="issued-key">
      <p>
        <strong>Your API key, shown once:</strong> keep it somewhere safe; Gridlab stores only a hash of it.
      </p>
      <code class="key">{issued.apiKey}</code>
      <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(issued.apiKey)}>
        Copy
      </button>
      <p class="muted">Paid until {when(issued.paidUntil)}. Sign in with it on the sign-in page.</p>
    </div>
  );
}

export function SubscribePage() {
  const [pricing, reloadPricing] = useLoad((signal) => api.pricing({ signal }), []);
  const [config] = useLoad((signal) => dashboardConfig(signal), []);
  const rpcUrl = config.state === 'ok' ? config.value.rpcUrl : null;
  const publicOrigin = config.state === 'ok' ? config.value.publicOrigin : location.origin;
  const [progress, setProgress] = useState<string | null>(null);
  const [wallet, setWallet] = useState<ConnectedWallet | null>(null);
  const [owner, setOwner] = useState('');
  const [plan, setPlan] = useState<'monthly' | 'annual'>('monthly');
  const [referral, setReferral] = useState('');
  const [start, setStart] = useState<SubscriptionStart | null>(null);
  const [txSig, setTxSig] = useState('');
  const [signatureBase64, setSignatureBase64] = useState('');
  // The expiry the shown message names: set when it is first shown, renewed on request.
  const [signUntil, setSignUntil] = useState(() => Date.now() + SIGNATURE_TTL_MS);
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ownerKey = wallet?.address ?? owner.trim();

  const run = async (call: () => Promise<void>) => {
    setBusy(true);
    setErrors({});
    setFailure(null);
    try {
      await call();
    } catch (error) {
      if (isGridlabApiError(error) && error.errors.length > 0) setErrors(Object.fromEntries(error.errors.map((e) => [e.path.replace(/^\//, ''), e.message])));
      else setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="sub-title" class="narrow">
      <h1 id="sub-title">Subscribe</h1>
      <Loaded load={pricing} what="pricing" retry={reloadPricing}>
        {(p) => (
          <div class="stats" data-testid="pricing">
            <Stat label="Price now" value={`${p.tokenNow} tokens / month`} />
            <Stat label="Subscribers" value={int(p.activeSubs)} />
            <Stat label="Next tier" value={p.nextThreshold === null ? '—' : `${p.tokenAtNextThreshold} tokens from ${int(p.nextThreshold)} subscribers`} />
          </div>
        )}
      </Loaded>
      <h2>1. Your wallet</h2>
      <WalletPicker action="Connect" onConnected={setWallet} />
      {wallet === null ? (
        <Field id="owner" label="Wallet address (owner of the subscription)" error={errors['ownerPubkey']}>
          <input {...described('owner', false, errors['ownerPubkey'])} value={owner} spellcheck={false} onInput={(e) => setOwner((e.target as HTMLInputElement).value)} />
        </Field>
      ) : (
        <p>
          Connected: <code>{wallet.address}</code> ({wallet.name})
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            // Only a signed redemption redeems this nonce: copying the payment from the chain is no use.
            setStart(await api.startSubscription({ ownerPubkey: ownerKey, plan, requireSignature: true, ...(referral.trim() === '' ? {} : { referralCode: referral.trim() }) }));
            setIssued(null);
            setSignatureBase64('');
            setSignUntil(Date.now() + SIGNATURE_TTL_MS);
          });
        }}
      >
        <Field id="plan" label="Plan" error={errors['plan']}>
          <select {...described('plan', false, errors['plan'])} value={plan} onChange={(e) => setPlan((e.target as HTMLSelectElement).value as 'monthly' | 'annual')}>
            <option value="monthly">Monthly</option>
            <option value="annual">Annual</option>
          </select>
        </Field>
        <Field id="referral" label="Referral code (optional)" hint="an active subscriber's id: 10% off a monthly plan" error={errors['referralCode']}>
          <input {...described('referral', true, errors['referralCode'])} value={referral} onInput={(e) => setReferral((e.target as HTMLInputElement).value)} />
        </Field>
        <div class="actions">
          {wallet?.signTransaction !== undefined && rpcUrl !== null && (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void run(async () => {
                  setProgress(`Approve the payment in ${wallet.name}…`);
                  try {
                    const { payWithWallet } = await import('../pay');
                    const key = await payWithWallet(wallet, {
                      rpcUrl,
                      domain: publicOrigin,
                      plan,
                      ...(referral.trim() === '' ? {} : { referralCode: referral.trim() }),
                      onPayment: ({ start: s, txSig: sig }) => {
                        setStart(s);
                        setTxSig(sig);
                        setProgress(`Payment ${sig.slice(0, 8)}… confirmed; approve the redemption message in ${wallet.name}…`);
                      },
                    });
                    setIssued(key);
                  } finally {
                    setProgress(null);
                  }
                })
              }
            >
              Pay with {wallet.name}
            </button>
          )}
          <button type="submit" class={wallet?.signTransaction !== undefined && rpcUrl !== null ? 'secondary' : ''} disabled={busy || ownerKey === ''}>
            Get payment instructions
          </button>
        </div>
      </form>
      {progress !== null && (
        <p class="muted" role="status" aria-live="polite">
          {progress}
        </p>
      )}
      {start !== null && (
        <div data-testid="payment-instructions">
          <h2>2. Pay</h2>
          <p>
            Send <strong>{start.priceToken} tokens</strong> of mint <code>{start.instructions.mint}</code> to <code>{start.instructions.to}</code> with the memo <code>{start.instructions.memo}</code> before{' '}
            {when(start.expiresAt)}, from the wallet above.
          </p>
          {(() => {
            const url = solanaPayUrl({ to: start.instructions.to, amount: String(start.priceToken), mint: start.instructions.mint, memo: start.instructions.memo, label: 'Gridlab' });
            return (
              <>
                <Qr text={url} />
                <p>
                  <a href={url} data-testid="solana-pay-link">
                    Open in a wallet (Solana Pay)
                  </a>
                </p>
              </>
            );
          })()}
          <h2>3. Get your key</h2>
          <p>
            The transfer is public once it lands, so the key goes only to a redemption signed by the owner's wallet
            {wallet === null ? ': sign the message below with it (off-chain message signing, ed25519) and paste the base64 signature, or connect the wallet above.' : '.'}
          </p>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void run(async () => {
                const message = subscribeMessage({ domain: publicOrigin, ownerPubkey: ownerKey, nonce: start.nonce, txSig: txSig.trim(), expiresAt: new Date(signUntil).toISOString() });
                // Every redemption is signed: the nonce asked for it, and a payment copied from the chain is of no use without it.
                const signature = wallet === null ? signatureBase64.trim() : await wallet.signMessage(message);
                setIssued(await api.completeSubscription({ nonce: start.nonce, txSig: txSig.trim(), ownerPubkey: ownerKey, message, signatureBase64: signature }));
              });
            }}
          >
            <Field id="txsig" label="Payment transaction signature" hint="from your wallet's activity, once the transfer is confirmed" error={errors['txSig']}>
              <input {...described('txsig', true, errors['txSig'])} value={txSig} spellcheck={false} onInput={(e) => setTxSig((e.target as HTMLInputElement).value)} />
            </Field>
            {wallet === null && txSig.trim() !== '' && (
              <>
                <p>
                  Message to sign with <code>{ownerKey}</code> (valid until {when(new Date(signUntil).toISOString())}){' '}
                  <button type="button" class="secondary" onClick={() => setSignUntil(Date.now() + SIGNATURE_TTL_MS)}>
                    New expiry
                  </button>
                </p>
                <pre class="message" data-testid="subscribe-message">
                  {subscribeMessage({ domain: publicOrigin, ownerPubkey: ownerKey, nonce: start.nonce, txSig: txSig.trim(), expiresAt: new Date(signUntil).toISOString() })}
                </pre>
                <Field id="signature" label="Signature of the message (base64)" hint="the owner wallet's ed25519 signature of the message's UTF-8 text" error={errors['signatureBase64'] ?? errors['message']}>
                  <input
                    {...described('signature', true, errors['signatureBase64'] ?? errors['message'])}
                    value={signatureBase64}
                    spellcheck={false}
                    onInput={(e) => setSignatureBase64((e.target as HTMLInputElement).value)}
                  />
                </Field>
              </>
            )}
            <button type="submit" disabled={busy || txSig.trim() === '' || (wallet === null && signatureBase64.trim() === '')}>
              {wallet === null ? 'Redeem with the signature' : 'Sign and redeem'}
            </button>
          </form>
        </div>
      )}
      {issued !== null && <ShowKey issued={issued} />}
      {failure !== null && <ErrorBox error={failure} />}
      <h2>Rotate your key</h2>
      <p>The wallet that owns the subscription signs a message; the old key stops working at once.</p>
      <RotateKey wallet={wallet} publicOrigin={publicOrigin} onIssued={setIssued} />
    </section>
  );
}

function RotateKey({ wallet, publicOrigin, onIssued }: { wallet: ConnectedWallet | null; publicOrigin: string; onIssued: (k: IssuedKey) => void }) {
  const [error, setError] = useState<string | null>(null);
  if (wallet === null) return <p class="muted">Connect the owner's wallet above to rotate the key.</p>;
  return (
    <>
      <button
        type="button"
        onClick={() =>
          void (async () => {
            setError(null);
            try {
              const start = await api.startReissue({ ownerPubkey: wallet.address });
              // The page builds the message it signs: one naming another site is never signed.
              const message = reissueMessage({ domain: publicOrigin, ownerPubkey: wallet.address, nonce: start.nonce, expiresAt: start.expiresAt });
              if (start.message !== message) throw new Error(`The service asked to sign a key rotation for another site than ${publicOrigin}; nothing was signed.`);
              onIssued(await api.completeReissue({ nonce: start.nonce, ownerPubkey: wallet.address, signatureBase64: await wallet.signMessage(message) }));
            } catch (e) {
              setError(describe(e));
            }
          })()
        }
      >
        Rotate the key of {wallet.address.slice(0, 4)}…{wallet.address.slice(-4)}
      </button>
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
