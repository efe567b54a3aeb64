/** Display helpers: every amount with its unit, every time in the reader's locale. */

export const LAMPORTS_PER_SOL = 1_000_000_000;

/** Lamports as SOL with up to `digits` decimals (trailing zeros dropped), e.g. `1.25 SOL`. */
export function sol(lamports: number, digits = 4): string {
  const value = lamports / LAMPORTS_PER_SOL;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })} SOL`;
}

/** ORE base units per whole ORE (11 decimals). */
const ORE_BASE_UNITS = 100_000_000_000;

/** ORE base units as whole ORE with up to `digits` decimals, without the unit: `46.2`. */
export function ore(baseUnits: number, digits = 2): string {
  return (baseUnits / ORE_BASE_UNITS).toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A signed SOL amount (already in SOL): `+0.12 SOL`, `−0.5 SOL`. */
export function signedSol(value: number, digits = 4): string {
  const abs = Math.abs(value).toLocaleString('en-US', { maximumFractionDigits: digits });
  // What rounds to 0 is shown unsigned (not `−0 SOL`).
  const sign = abs === '0' ? '' : value > 0 ? '+' : value < 0 ? '−' : '';
  return `${sign}${abs} SOL`;
}

/** A fraction as a percentage: 0.1234 → `12.34%`. */
export function pct(fraction: number, digits = 2): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

export function int(n: number): string {
  return n.toLocaleString('en-US');
}

/** Seconds as `m:ss` (a countdown). */
export function countdown(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A p-value with the precision that matters for reading it. */
export function pValue(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

export function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

/** 0..1 intensity of a value within [0, max], for heatmaps (0 when max is 0). */
export function intensity(value: number, max: number): number {
  return max <= 0 ? 0 : Math.min(1, Math.max(0, value / max));
}

/** The `solana:` payment URL (Solana Pay transfer request) of a subscription start. */
export function solanaPayUrl(args: { to: string; amount: string; mint: string; memo: string; label?: string }): string {
  const params = new URLSearchParams({ amount: args.amount, 'spl-token': args.mint, memo: args.memo });
  if (args.label !== undefined) params.set('label', args.label);
  return `solana:${args.to}?${params.toString()}`;
}

/** Token base units as a decimal string (no float rounding): 1500000 with 6 decimals → `1.5`. */
export function baseUnitsToDecimal(baseUnits: string, decimals: number): string {
  const digits = baseUnits.replace(/^0+/, '') || '0';
  if (decimals === 0) return digits;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
