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
