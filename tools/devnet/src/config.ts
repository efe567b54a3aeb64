import { int, loadConfig, num, oneOf, str, type Env, type Field } from '@gridlab/config';
import { parseRpcLimits } from './rpc/rate-limits';

/** `method=requests/window,...`, checked at start (an empty value: no limits). */
const rpcLimits: Field<string> = {
  parse: (raw) => {
    parseRpcLimits(raw);
    return raw;
  },
  default: '',
  secret: false,
  doc: 'per-method RPC budgets, e.g. default=100/10s,getProgramAccounts=5/1s',
};

const SCHEMA = {
  DEVNET_HOST: str({ default: '127.0.0.1' }),
  DEVNET_RPC_PORT: int({ default: 8899, min: 0, max: 65535 }),
  DEVNET_WS_PORT: int({ default: 8900, min: 0, max: 65535 }),
  DEVNET_SLOT_MS: int({ default: 400, min: 1, max: 60_000 }),
  DEVNET_ROUND_SLOTS: int({ default: 150, min: 1, max: 100_000 }),
  DEVNET_INTERMISSION_SLOTS: int({ default: 35, min: 1, max: 100_000 }),
  DEVNET_SEED: int({ default: 1, min: 0 }),
  DEVNET_HISTORY_ROUNDS: int({ default: 0, min: 0, max: 10_000_000 }),
  DEVNET_DEPLOYS_PER_ROUND: int({ default: 400, min: 2, max: 100_000 }),
  DEVNET_VOIDED_ROUND_RATE: num({ default: 0.002, min: 0, max: 1 }),
  DEVNET_ERA: oneOf(['mixed', 'v3', 'parimutuel-952', 'returns'] as const, {
    default: 'mixed',
    doc: 'program eras the game plays: all in turn over the history (mixed), or one; v3 live rounds are the real program by default (DEVNET_LIVE_PROGRAM)',
  }),
  DEVNET_LIVE_PROGRAM: oneOf(['auto', 'port', '2026-04', '2025-12'] as const, {
    default: 'auto',
    doc:
      "who plays the live rounds: the ORE program's own mainnet executable of that date (fixtures/mainnet/program-<date>/ore.so) in the devnet's LiteSVM, " +
      'or the port; auto: the 2026-04 executable with DEVNET_ERA=v3, 150-slot rounds, an intermission of 35 slots or more, mainnet\'s ORE_PROGRAM_ID and no ' +
      'DEVNET_LEDGER_DIR, the port otherwise (a date asked for with other settings is refused); history rounds are always the port\'s',
  }),
  DEVNET_LEDGER_DIR: str({ default: '', minLength: 0 }),
  DEVNET_SAVE_INTERVAL_MS: int({ default: 10_000, min: 100, max: 3_600_000 }),
  DEVNET_ROUND_EXPIRY_SLOTS: int({ default: 216_000, min: 0, max: 1_000_000_000 }),
  DEVNET_RPC_LIMITS: rpcLimits,
  DEVNET_WS_IDLE_S: int({ default: 600, min: 0, max: 86_400 }),
  ORE_PROGRAM_ID: str({ default: 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv' }),
  ORE_TOKEN_MINT: str({ default: 'oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp' }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'] as const, { default: 'info' }),
};

export function loadDevnetConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
