// RFC 6962 Merkle trees: leaf and node hashes, inclusion and consistency
// proofs, and a tree's root rebuilt from C2SP tlog-tiles around leaves
// whose hashes are known.

import { concat, equal, sha256 } from "./bytes.ts";

export const leafHash = (leaf: Uint8Array): Promise<Uint8Array> => sha256(concat(new Uint8Array([0]), leaf));
const nodeHash = (l: Uint8Array, r: Uint8Array): Promise<Uint8Array> => sha256(concat(new Uint8Array([1]), l, r));

const half = (n: number): number => Math.floor(n / 2);
const odd = (n: number): boolean => n % 2 === 1;

/** checkInclusion throws unless proof shows the leaf of hash h at index in
 * the tree of size and root (RFC 9162, 2.1.3.2). */
export async function checkInclusion(proof: Uint8Array[], size: number, root: Uint8Array, index: number, h: Uint8Array): Promise<void> {
  if (index < 0 || index >= size) throw new Error(`leaf index ${index} is outside the tree of size ${size}`);
  let fn = index;
  let sn = size - 1;
  let r = h;
  for (const p of proof) {
    if (sn === 0) throw new Error("the inclusion proof is too long");
    if (odd(fn) || fn === sn) {
      r = await nodeHash(p, r);
      while (!odd(fn) && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      r = await nodeHash(r, p);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  if (sn !== 0 || !equal(r, root)) throw new Error(`the leaf is not at index ${index} of the tree`);
}

/** checkConsistency throws unless proof shows the tree of size2 and root2
 * extends the tree of size1 and root1 (RFC 9162, 2.1.4.2), 0 < size1 < size2. */
export async function checkConsistency(proof: Uint8Array[], size1: number, root1: Uint8Array, size2: number, root2: Uint8Array): Promise<void> {
  const fail = new Error(`the tree of size ${size2} does not extend the tree of size ${size1}`);
  if (size1 <= 0 || size1 >= size2) throw fail;
  const path = (size1 & (size1 - 1)) === 0 && size1 < 2 ** 31 ? [root1, ...proof] : proof;
  if (path.length === 0) throw fail;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (odd(fn)) [fn, sn] = [half(fn), half(sn)];
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) throw fail;
    if (odd(fn) || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      sr = await nodeHash(sr, c);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  if (sn !== 0 || !equal(fr, root1) || !equal(sr, root2)) throw fail;
}

/** TileReader gives a tile's bytes by its C2SP path (tile/L/N[.p/W]). */
export type TileReader = (path: string) => Promise<Uint8Array>;

/** tilePath is the C2SP tlog-tiles path of tile n at level, of width w. */
export function tilePath(level: number, n: number, w: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  const path = groups.map((g, i) => (i < groups.length - 1 ? "x" + g : g)).join("/");
  return `tile/${level}/${path}${w < 256 ? `.p/${w}` : ""}`;
}

/** rootAround rebuilds the root of the tree of size from the given leaf
 * hashes (by index) and, for every subtree holding none of them, the
 * hashes its tiles publish: equal to the checkpoint's root, it proves
 * every given leaf is in the tree at its index. A leaf may be given as
 * the hashes of its encodings: the one its tile holds is taken (any other
 * gives another root), and without tiles the one at `choice`. Without
 * tiles it succeeds only when the leaves given are the whole tree. */
export async function rootAround(size: number, leaves: Map<number, Uint8Array[]>, tiles?: TileReader, choice = 0): Promise<Uint8Array> {
  const known = [...leaves.keys()].sort((a, b) => a - b);
  const cache = new Map<string, Promise<Uint8Array>>();
  const holds = (lo: number, hi: number): boolean => {
    let i = 0;
    let j = known.length;
    while (i < j) {
      const m = (i + j) >> 1;
      if (known[m]! < lo) i = m + 1;
      else j = m;
    }
    return i < known.length && known[i]! < hi;
  };
  const tileHash = async (level: number, k: number): Promise<Uint8Array> => {
    if (!tiles) throw new Error("the log's tiles are needed to place these records in its tree");
    const n = Math.floor(k / 256);
    const w = Math.min(256, Math.floor(size / 256 ** level) - n * 256);
    const path = tilePath(level, n, w);
    if (!cache.has(path)) cache.set(path, tiles(path));
    const t = await cache.get(path)!;
    if (t.length !== w * 32) throw new Error(`tile ${path} holds ${t.length} bytes, not ${w * 32}`);
    return t.slice((k % 256) * 32, (k % 256) * 32 + 32);
  };
  const hashOf = async (lo: number, hi: number): Promise<Uint8Array> => {
    const n = hi - lo;
    const candidates = n === 1 ? leaves.get(lo) : undefined;
    if (candidates) {
      if (candidates.length === 1 || !tiles) return candidates[Math.min(choice, candidates.length - 1)]!;
      const logged = await tileHash(0, lo);
      return candidates.find((c) => equal(c, logged)) ?? candidates[0]!;
    }
    if (!holds(lo, hi)) {
      for (let level = 0; 256 ** level <= n; level++) {
        if (256 ** level === n && lo % n === 0) return tileHash(level, lo / n);
      }
    }
    let k = 1;
    while (k * 2 < n) k *= 2;
    return nodeHash(await hashOf(lo, lo + k), await hashOf(lo + k, hi));
  };
  if (size === 0) return sha256(new Uint8Array());
  return hashOf(0, size);
}
