import { InputError } from '@gridlab/errors';
import type { Plan } from '@gridlab/contracts';

/** One rung of the price ladder: from `minActive` active subscriptions on, `monthly` base units a month. */
interface PriceStep {
  readonly minActive: number;
  readonly monthly: bigint;
}

/** The price ladder with the payment token's decimals; steps ascend by `minActive`, the first at 0. */
export interface PriceLadder {
  readonly steps: readonly PriceStep[];
  readonly decimals: number;
}

const ANNUAL_MULTIPLIER = 3n;
const REFERRAL_PERCENT_OFF = 10n;

/** Parses a decimal token amount ("0.1") into base units, exactly; more digits than `decimals` is an error. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (match === null) throw new InputError(`"${amount}" is not a decimal token amount`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) throw new InputError(`"${amount}" has more than ${decimals} decimals`);
  return BigInt(match[1]! + fraction.padEnd(decimals, '0'));
}

/** Base units as a token number (what the API shows as `priceToken`/`tokenNow`). */
export function toTokens(baseUnits: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(baseUnits / scale) + Number(baseUnits % scale) / Number(scale);
}

/**
 * Parses `PRICE_LADDER` ("0:0.1,100:0.2,250:0.4,500:0.8": active count from which a
 * monthly price in tokens applies). The first step must start at 0; counts ascend.
 */
export function parseLadder(spec: string, decimals: number): PriceLadder {
  const steps = spec.split(',').map((part) => {
    const [count, price] = part.trim().split(':');
    if (count === undefined || price === undefined || !/^\d+$/.test(count)) {
      throw new InputError(`price ladder step "${part}" must look like <active count>:<monthly price>`);
    }
    const monthly = toBaseUnits(price, decimals);
    if (monthly <= 0n) throw new InputError(`price ladder step "${part}" must have a positive price`);
    return { minActive: Number(count), monthly };
  });
  if (steps[0]?.minActive !== 0) throw new InputError('the price ladder must start at 0 active subscriptions');
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]!.minActive <= steps[i - 1]!.minActive) throw new InputError('price ladder counts must ascend');
  }
  return { steps, decimals };
}

/** Index of the step that applies at `activeSubs`. */
export function tierIndex(ladder: PriceLadder, activeSubs: number): number {
  let index = 0;
  while (index + 1 < ladder.steps.length && activeSubs >= ladder.steps[index + 1]!.minActive) index++;
  return index;
}

/** What GET /pricing shows, minus the addresses. */
export function priceSheet(ladder: PriceLadder, activeSubs: number) {
  const index = tierIndex(ladder, activeSubs);
  const next = ladder.steps[index + 1];
  return {
    activeSubs,
    tokenNow: toTokens(ladder.steps[index]!.monthly, ladder.decimals),
    nextThreshold: next === undefined ? null : next.minActive,
    tokenAtNextThreshold: next === undefined ? null : toTokens(next.monthly, ladder.decimals),
  };
}

/**
 * The price locked into a payment nonce: the monthly price at `activeSubs`, times 3 for
 * `annual` (12 months, no referral discount), 10% off a monthly plan with a referral
 * (rounded down to a base unit).
 */
export function quote(ladder: PriceLadder, activeSubs: number, plan: Plan, referral: boolean): bigint {
  const monthly = ladder.steps[tierIndex(ladder, activeSubs)]!.monthly;
  if (plan === 'annual') return monthly * ANNUAL_MULTIPLIER;
  return referral ? (monthly * (100n - REFERRAL_PERCENT_OFF)) / 100n : monthly;
}

/** The period a plan buys, applied as `max(now, paidUntil) + period` in calendar months. */
export function planMonths(plan: Plan): number {
  return plan === 'annual' ? 12 : 1;
}
