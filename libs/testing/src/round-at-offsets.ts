import bs58 from 'bs58';

/**
 * A 568-byte v3 Round account read at SPEC 3's offsets, neither with libs/chain's codec nor
 * the devnet's reader: a third reading, for tests that hold both against the bytes a real
 * program wrote. The winning square comes from the slot hash (rng: its four LE u64 words
 * xor-ed, mod 25; ore `api/src/state/round.rs`).
 */
export function roundV3AtOffsets(data: Uint8Array) {
  if (data.length !== 568 || data[0] !== 109) throw new Error(`not a 568-byte Round account (${data.length} bytes, discriminator ${data[0]})`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u64 = (at: number) => Number(view.getBigUint64(at, true));
  const squares = (at: number) => Array.from({ length: 25 }, (_, i) => u64(at + 8 * i));
  let rng = 0n;
  for (let w = 0; w < 4; w++) rng ^= view.getBigUint64(216 + 8 * w, true);
  return {
    id: u64(8),
    deployed: squares(16),
    slotHash: Buffer.from(data.subarray(216, 248)).toString('hex'),
    count: squares(248),
    expiresAt: view.getBigUint64(448, true),
    motherlode: u64(456),
    rentPayer: bs58.encode(data.subarray(464, 496)),
    topMinerReward: u64(528),
    totalDeployed: u64(536),
    totalMiners: u64(544),
    totalVaulted: u64(552),
    totalWinnings: u64(560),
    winningSquare: Number(rng % 25n),
  };
}
