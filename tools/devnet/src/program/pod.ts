/**
 * The program's accounts and events are `#[repr(C)]` structs cast to bytes (bytemuck's
 * `Pod`): fields in declaration order, little-endian, no padding (every field is a u64, an
 * i64 or a byte array). `Pod` writes one field after another, so the offsets follow from the
 * Rust declarations the callers transcribe, not from a table of offsets.
 */
export class Pod {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private at = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  /** steel's account header: the account's discriminator byte, then 7 zero bytes. */
  header(discriminator: number): this {
    this.bytes[this.at] = discriminator;
    this.at += 8;
    return this;
  }

  u64(value: number | bigint): this {
    this.view.setBigUint64(this.at, BigInt(value), true);
    this.at += 8;
    return this;
  }

  i64(value: number): this {
    this.view.setBigInt64(this.at, BigInt(value), true);
    this.at += 8;
    return this;
  }

  /** steel's `Numeric` (an I80F48 fixed point): its raw i128 bits, little-endian. */
  i128(bits: bigint): this {
    this.view.setBigUint64(this.at, BigInt.asUintN(64, bits), true);
    this.view.setBigUint64(this.at + 8, BigInt.asUintN(64, bits >> 64n), true);
    this.at += 16;
    return this;
  }

  /** A `[u64; n]` (missing entries are 0). */
  u64s(values: readonly number[], n: number): this {
    for (let i = 0; i < n; i++) this.u64(values[i] ?? 0);
    return this;
  }

  /** A `[u8; n]` or a `Pubkey`. */
  raw(bytes: Uint8Array, n = 32): this {
    if (bytes.length !== n) throw new RangeError(`a field of ${n} bytes got ${bytes.length}`);
    this.bytes.set(bytes, this.at);
    this.at += n;
    return this;
  }

  /** The struct, checked to be exactly as long as declared. */
  done(): Uint8Array {
    if (this.at !== this.bytes.length) throw new RangeError(`struct of ${this.bytes.length} bytes written to ${this.at}`);
    return this.bytes;
  }
}

/** Reads a struct field after field as `Pod` writes it (the tests read real accounts in their Rust declaration order). */
export class PodReader {
  private readonly view: DataView;
  private at: number;

  /** Starts after steel's 8-byte account header unless `from` says otherwise. */
  constructor(
    private readonly bytes: Uint8Array,
    from = 8,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    this.at = from;
  }

  /** A u64 as a number (every field the tests read is below 2^53). */
  u64(): number {
    const value = Number(this.view.getBigUint64(this.at, true));
    this.at += 8;
    return value;
  }

  i64(): number {
    const value = Number(this.view.getBigInt64(this.at, true));
    this.at += 8;
    return value;
  }

  /** A u64 as a bigint (`u64::MAX` markers, values past 2^53). */
  u64n(): bigint {
    const value = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return value;
  }

  /** steel's `Numeric`: the raw i128 bits of an I80F48. */
  i128(): bigint {
    const low = this.view.getBigUint64(this.at, true);
    const high = this.view.getBigInt64(this.at + 8, true);
    this.at += 16;
    return (high << 64n) | low;
  }

  /** A `[u64; 25]`. */
  squares(): number[] {
    return Array.from({ length: 25 }, () => this.u64());
  }

  /** A `[u8; 32]` or a `Pubkey`. */
  raw(n = 32): Uint8Array {
    this.at += n;
    return this.bytes.slice(this.at - n, this.at);
  }
}
