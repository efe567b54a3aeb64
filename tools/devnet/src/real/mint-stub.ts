/**
 * A stand-in for the ore-mint program, whose executable is not among the fixtures:
 * since 2025-12-05 (ore acd03d2) reset asks ore-mint to mint the round's ORE, and
 * without a program at that address every reset with a winner fails. The stand-in is
 * a copy of another SBF executable whose entrypoint is overwritten with
 * `mov64 r0, 0; exit`: it accepts any call and changes nothing, so the ORE amounts the
 * program records are its own (`top_miner_reward`, the motherlode) but no token moves.
 * SOL is untouched by the mint call.
 */
const PT_LOAD = 1;
/** `mov64 r0, 0` and `exit`, 8 bytes each. */
const RETURN_SUCCESS = Uint8Array.of(0xb7, 0, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0);

/** `elf` with its entrypoint replaced by an immediate successful return. */
export function noopProgram(elf: Uint8Array): Uint8Array {
  const bytes = elf.slice();
  const view = new DataView(bytes.buffer);
  if (view.getUint32(0, false) !== 0x7f454c46) throw new Error('not an ELF file');
  const entry = view.getBigUint64(0x18, true);
  const phoff = Number(view.getBigUint64(0x20, true));
  const phentsize = view.getUint16(0x36, true);
  const phnum = view.getUint16(0x38, true);
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + i * phentsize;
    if (view.getUint32(ph, true) !== PT_LOAD) continue;
    const offset = view.getBigUint64(ph + 8, true);
    const vaddr = view.getBigUint64(ph + 16, true);
    const filesz = view.getBigUint64(ph + 32, true);
    if (entry >= vaddr && entry + 16n <= vaddr + filesz) {
      bytes.set(RETURN_SUCCESS, Number(entry - vaddr + offset));
      return bytes;
    }
  }
  throw new Error('entrypoint is in no loaded segment');
}
