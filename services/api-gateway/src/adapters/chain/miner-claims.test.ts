import { OrePdas, ORE_PROGRAM_ID, type RawAccount } from '@gridlab/chain';
import { minerV3, newMiner } from '@gridlab/devnet/program';
import { createLogger } from '@gridlab/logger';
import bs58 from 'bs58';
import { CLAIMS_TTL_MS, RpcMinerClaims } from './miner-claims';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const pdas = new OrePdas(ORE_PROGRAM_ID);
const logger = createLogger({ service: 'test', silent: true });

/** The devnet's port of the program writes a v3 Miner account as the program does. */
function minerAccount(): RawAccount {
  const miner = newMiner(bs58.decode(WALLET));
  Object.assign(miner, { rewardsSol: 2_500_000, rewardsOre: 1_000_000_000, refinedOre: 12_345, checkpointId: 3071, roundId: 3072, checkpointFee: 10_000 });
  return { pubkey: pdas.miner(WALLET).toBase58(), data: Buffer.from(minerV3(miner)), owner: ORE_PROGRAM_ID };
}

function rpc(answer: () => Promise<RawAccount | null>) {
  const asked: string[] = [];
  return { asked, getAccount: (pubkey: string) => (asked.push(pubkey), answer()) };
}

describe("a wallet's claimable figures", () => {
  it("reads the wallet's Miner PDA and answers its rewards and last checkpoint", async () => {
    const chain = rpc(async () => minerAccount());
    const claims = new RpcMinerClaims(chain, pdas, logger);
    expect(await claims.claimable(WALLET)).toEqual({ sol: 2_500_000, ore: 1_000_000_000, refinedOre: 12_345, checkpointedRound: 3071 });
    expect(chain.asked).toEqual([pdas.miner(WALLET).toBase58()]);
  });

  it('answers null without a Miner account, for an account the program does not own, and when the RPC fails', async () => {
    expect(await new RpcMinerClaims(rpc(async () => null), pdas, logger).claimable(WALLET)).toBeNull();
    expect(await new RpcMinerClaims(rpc(async () => ({ ...minerAccount(), owner: '11111111111111111111111111111111' })), pdas, logger).claimable(WALLET)).toBeNull();
    expect(await new RpcMinerClaims(rpc(() => Promise.reject(new Error('503'))), pdas, logger).claimable(WALLET)).toBeNull();
    expect(await new RpcMinerClaims(rpc(async () => ({ ...minerAccount(), data: Buffer.alloc(100) })), pdas, logger).claimable(WALLET)).toBeNull();
  });

  it('asks the chain once per wallet within the cache window, again after it', async () => {
    let now = 1_000_000;
    const chain = rpc(async () => minerAccount());
    const claims = new RpcMinerClaims(chain, pdas, logger, () => now);
    await Promise.all([claims.claimable(WALLET), claims.claimable(WALLET)]);
    now += CLAIMS_TTL_MS - 1;
    await claims.claimable(WALLET);
    expect(chain.asked).toHaveLength(1);
    now += 1;
    await claims.claimable(WALLET);
    expect(chain.asked).toHaveLength(2);
  });
});
