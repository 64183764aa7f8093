/**
 * Format checks of the single executables (docs/install.md#install-executable) that cannot run
 * on the build machine: the file is the target's kind of executable (ELF, PE, Mach-O) for the
 * target's CPU, and the SEA fuse of Node was flipped (the application was injected).
 */

export type BinaryFormat = 'elf' | 'pe' | 'macho';
export type BinaryArch = 'x64' | 'arm64';

export interface BinaryKind {
  readonly format: BinaryFormat;
  readonly arch: BinaryArch;
}

/** ELF e_machine values (System V ABI). */
const ELF_MACHINE: Readonly<Record<number, BinaryArch>> = { 0x3e: 'x64', 0xb7: 'arm64' };
/** PE COFF Machine values (Microsoft PE format). */
const PE_MACHINE: Readonly<Record<number, BinaryArch>> = { 0x8664: 'x64', 0xaa64: 'arm64' };
/** Mach-O cputype values (mach/machine.h: CPU_ARCH_ABI64 | CPU_TYPE_X86 / CPU_TYPE_ARM). */
const MACHO_CPU: Readonly<Record<number, BinaryArch>> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };

/**
 * The sentinel of Node's SEA fuse: Node ships it ending in `:0`; injecting an application
 * (`node --build-sea`, postject) flips it to `:1`.
 */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const archOf = (table: Readonly<Record<number, BinaryArch>>, value: number, what: string): BinaryArch => {
  const arch = table[value];
  if (arch === undefined) throw new Error(`unknown ${what} 0x${value.toString(16)}`);
  return arch;
};

const elfKind = (head: Buffer): BinaryKind => {
  if (head.length < 20) throw new Error('truncated ELF header');
  if (head[4] !== 2) throw new Error('not a 64-bit ELF file');
  if (head[5] !== 1) throw new Error('not a little-endian ELF file');
  return { format: 'elf', arch: archOf(ELF_MACHINE, head.readUInt16LE(18), 'ELF e_machine') };
};

const peKind = (head: Buffer): BinaryKind => {
  if (head.length < 0x40) throw new Error('truncated DOS header');
  const offset = head.readUInt32LE(0x3c);
  if (offset + 6 > head.length) throw new Error('PE header offset beyond the file head');
  if (head.toString('latin1', offset, offset + 4) !== 'PE\0\0')
    throw new Error('no PE signature after the MZ header');
  return { format: 'pe', arch: archOf(PE_MACHINE, head.readUInt16LE(offset + 4), 'PE machine') };
};

const machoKind = (head: Buffer): BinaryKind => {
  if (head.length < 8) throw new Error('truncated Mach-O header');
  return { format: 'macho', arch: archOf(MACHO_CPU, head.readUInt32LE(4), 'Mach-O cputype') };
};

/** The kind of executable whose first bytes are `head` (at least 4 KiB for PE); throws when unknown. */
export function binaryKind(head: Buffer): BinaryKind {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x7f454c46) return elfKind(head);
  if (head.length >= 2 && head.toString('latin1', 0, 2) === 'MZ') return peKind(head);
  // 0xfeedfacf read little-endian: a 64-bit Mach-O of a little-endian CPU (x86_64, arm64).
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfeedfacf) return machoKind(head);
  if (head.length >= 4 && head.readUInt32BE(0) === 0xcafebabe)
    throw new Error('a universal (fat) Mach-O file');
  throw new Error('not an ELF, PE or 64-bit Mach-O file');
}

/** The first problem of `file` as the single executable of `expected`, or undefined. */
export function formatProblem(file: Buffer, expected: BinaryKind): string | undefined {
  let kind: BinaryKind;
  try {
    kind = binaryKind(file.subarray(0, 4096));
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (kind.format !== expected.format || kind.arch !== expected.arch)
    return `a ${kind.format} ${kind.arch} file, not ${expected.format} ${expected.arch}`;
  if (file.includes(`${SEA_FUSE}:1`)) return undefined;
  return file.includes(`${SEA_FUSE}:0`)
    ? 'the SEA fuse is not flipped: no application injected'
    : 'no SEA fuse: not a Node binary';
}
