/**
 * The format checks of the single executables that cannot run here (scripts/seaFormat.ts,
 * docs/install.md#install-executable), on hand-made file heads: `npm run build:sea` runs them on
 * the real files, which `npm test` does not build.
 */
import { describe, expect, it } from 'vitest';
import { binaryKind, formatProblem } from '../../scripts/seaFormat.js';

const FUSE_ON = Buffer.from('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1');
const FUSE_OFF = Buffer.from('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:0');

/** A 64-bit little-endian ELF head with e_machine `machine`. */
function elf(machine: number): Buffer {
  const head = Buffer.alloc(64);
  head.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  head.writeUInt16LE(machine, 18);
  return head;
}

/** A PE head: `MZ`, e_lfanew 0x80, then `PE\0\0` (unless `signature` says otherwise) and the machine. */
function pe(machine: number, signature = 'PE\0\0'): Buffer {
  const head = Buffer.alloc(0x100);
  head.write('MZ', 0, 'latin1');
  head.writeUInt32LE(0x80, 0x3c);
  head.write(signature, 0x80, 'latin1');
  head.writeUInt16LE(machine, 0x84);
  return head;
}

/** A 64-bit Mach-O head (magic 0xfeedfacf, little-endian) with `cputype`. */
function macho(cputype: number): Buffer {
  const head = Buffer.alloc(32);
  head.set([0xcf, 0xfa, 0xed, 0xfe], 0);
  head.writeUInt32LE(cputype, 4);
  return head;
}

const withFuse = (head: Buffer, fuse: Buffer = FUSE_ON): Buffer =>
  Buffer.concat([head, Buffer.alloc(4096), fuse]);

describe('the kind of an executable', () => {
  it('reads ELF e_machine', () => {
    expect(binaryKind(elf(0x3e))).toEqual({ format: 'elf', arch: 'x64' });
    expect(binaryKind(elf(0xb7))).toEqual({ format: 'elf', arch: 'arm64' });
  });

  it('reads the PE machine after the MZ header', () => {
    expect(binaryKind(pe(0x8664))).toEqual({ format: 'pe', arch: 'x64' });
    expect(binaryKind(pe(0xaa64))).toEqual({ format: 'pe', arch: 'arm64' });
    expect(() => binaryKind(pe(0x8664, 'NE\0\0'))).toThrow('no PE signature after the MZ header');
  });

  it('reads the Mach-O cputype', () => {
    expect(binaryKind(macho(0x01000007))).toEqual({ format: 'macho', arch: 'x64' });
    expect(binaryKind(macho(0x0100000c))).toEqual({ format: 'macho', arch: 'arm64' });
  });

  it('refuses what it does not know', () => {
    expect(() => binaryKind(elf(0x28))).toThrow('unknown ELF e_machine 0x28');
    expect(() => binaryKind(Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]))).toThrow(
      'a universal (fat) Mach-O file',
    );
    expect(() => binaryKind(Buffer.from('#!/usr/bin/env node\n'))).toThrow(
      'not an ELF, PE or 64-bit Mach-O file',
    );
  });
});

describe('the problem of a single executable', () => {
  it('is none for the right kind with the SEA fuse flipped', () => {
    expect(formatProblem(withFuse(pe(0x8664)), { format: 'pe', arch: 'x64' })).toBeUndefined();
    expect(formatProblem(withFuse(macho(0x01000007)), { format: 'macho', arch: 'x64' })).toBeUndefined();
    expect(formatProblem(withFuse(elf(0xb7)), { format: 'elf', arch: 'arm64' })).toBeUndefined();
  });

  it('names a file of another CPU or format', () => {
    expect(formatProblem(withFuse(elf(0x3e)), { format: 'elf', arch: 'arm64' })).toBe(
      'a elf x64 file, not elf arm64',
    );
    expect(formatProblem(withFuse(macho(0x0100000c)), { format: 'macho', arch: 'x64' })).toBe(
      'a macho arm64 file, not macho x64',
    );
    expect(formatProblem(withFuse(elf(0x3e)), { format: 'pe', arch: 'x64' })).toBe(
      'a elf x64 file, not pe x64',
    );
  });

  it('names a Node that holds no application', () => {
    expect(formatProblem(withFuse(elf(0x3e), FUSE_OFF), { format: 'elf', arch: 'x64' })).toBe(
      'the SEA fuse is not flipped: no application injected',
    );
    expect(formatProblem(elf(0x3e), { format: 'elf', arch: 'x64' })).toBe('no SEA fuse: not a Node binary');
  });
});
