import { useEffect, useState } from 'preact/hooks';
import type { Wallet } from '@wallet-standard/base';
import { connect, onWalletsChanged, solanaWallets, type ConnectedWallet } from '../wallet';
import { describe } from '../api';

/** Buttons for the installed Solana wallets; nothing when none is installed (the caller shows its alternative). */
export function WalletPicker({ onConnected, action }: { onConnected: (wallet: ConnectedWallet) => void; action: string }) {
  const [wallets, setWallets] = useState<readonly Wallet[]>(solanaWallets());
  const [error, setError] = useState<string | null>(null);
  useEffect(() => onWalletsChanged(() => setWallets(solanaWallets())), []);
  if (wallets.length === 0) return <p class="muted">No Solana wallet extension found in this browser.</p>;
  return (
    <div class="wallets">
      {wallets.map((w) => (
        <button
          key={w.name}
          type="button"
          class="secondary"
          onClick={() =>
            void connect(w).then(onConnected, (e: unknown) => setError(describe(e)))
          }
        >
          {w.icon !== undefined && <img src={w.icon} alt="" width={20} height={20} />} {action} with {w.name}
        </button>
      ))}
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
