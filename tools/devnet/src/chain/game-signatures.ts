/**
 * Signatures of the game's transactions. They are never verified (no client checks an
 * ed25519 signature it reads back), so instead of signing, each one spells out which
 * transaction it is — the chain's tag, the kind, the round, the deploy's index — and is
 * filled with a hash of that: `getTransaction` finds a transaction from its signature
 * alone, with nothing stored per transaction, and a signature the devnet never issued
 * (a real one, or a tampered one) is not mistaken for one of its own.
 */
import { createHash } from 'node:crypto';
import { decodeBase58, encodeBase58 } from '@gridlab/chain';

type GameTxKind = 'deploy' | 'reset' | 'close';

/** Which game transaction: a round's deploy (by index), its reset, or its close. */
export interface GameTxId {
  readonly kind: GameTxKind;
  readonly roundId: number;
  /** The deploy's index in the round (0 for resets and closes). */
  readonly index: number;
}

const KINDS: readonly GameTxKind[] = ['deploy', 'reset', 'close'];
const SIGNATURE_BYTES = 64;
const IDENTITY_BYTES = 15;
const MAX_ROUND_ID = 2 ** 48 - 1;
/**
 * Signatures remembered with what they name: a client fetches the transactions it has
 * just listed, and a remembered one is known without base58 and a hash. Two generations
 * of this many (a round has a few hundred transactions); the older is dropped whole, as
 * evicting a Map's oldest entry one by one gets slower the more were evicted.
 */
const ISSUED_GENERATION = 16_384;

export class GameSignatures {
  private readonly secret: Buffer;
  private readonly tag: Buffer;
  private issued = new Map<string, GameTxId>();
  private issuedBefore = new Map<string, GameTxId>();

  constructor(seed: number) {
    this.secret = createHash('sha256').update(`gridlab-devnet-signatures:${seed}`).digest();
    this.tag = this.secret.subarray(0, 4);
  }

  encode(id: GameTxId): string {
    if (!Number.isSafeInteger(id.roundId) || id.roundId < 0 || id.roundId > MAX_ROUND_ID) throw new RangeError(`round id ${id.roundId} out of range`);
    const bytes = Buffer.alloc(SIGNATURE_BYTES);
    this.tag.copy(bytes, 0);
    bytes[4] = KINDS.indexOf(id.kind) + 1;
    bytes.writeUIntLE(id.roundId, 5, 6);
    bytes.writeUInt32LE(id.index, 11);
    this.filler(bytes).copy(bytes, IDENTITY_BYTES, 0, SIGNATURE_BYTES - IDENTITY_BYTES);
    const signature = encodeBase58(bytes);
    if (this.issued.size >= ISSUED_GENERATION) {
      this.issuedBefore = this.issued;
      this.issued = new Map();
    }
    this.issued.set(signature, id);
    return signature;
  }

  /** The transaction a signature names, or null when this devnet did not issue it. */
  decode(signature: string): GameTxId | null {
    const issued = this.issued.get(signature) ?? this.issuedBefore.get(signature);
    if (issued !== undefined) return issued;
    const decoded = base58OrNull(signature);
    if (decoded === null) return null;
    const bytes = Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength);
    if (bytes.length !== SIGNATURE_BYTES || !bytes.subarray(0, 4).equals(this.tag)) return null;
    const kind = KINDS[(bytes[4] ?? 0) - 1];
    if (kind === undefined) return null;
    if (!this.filler(bytes).subarray(0, SIGNATURE_BYTES - IDENTITY_BYTES).equals(bytes.subarray(IDENTITY_BYTES))) return null;
    return { kind, roundId: bytes.readUIntLE(5, 6), index: bytes.readUInt32LE(11) };
  }

  private filler(bytes: Buffer): Buffer {
    return createHash('sha512').update(this.secret).update(bytes.subarray(0, IDENTITY_BYTES)).digest();
  }
}

/** Whether `value` is a base58 string of a 64-byte signature. */
export function isSignature(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 64 && value.length <= 88 && base58OrNull(value)?.length === SIGNATURE_BYTES;
}

function base58OrNull(text: string): Uint8Array | null {
  try {
    return decodeBase58(text);
  } catch {
    return null;
  }
}
