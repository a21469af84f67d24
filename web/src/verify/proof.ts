// The log's proofs as the API answers them: a version's proof bundle (a
// signed checkpoint, the leaf's index and bytes, its inclusion proof) and
// a consistency proof between two tree sizes.

import { fromBase64 } from "./bytes.ts";
import { isObject, onlyMembers, type Json } from "./json.ts";
import { checkConsistency, checkInclusion, leafHash } from "./merkle.ts";
import { openCheckpoint, sameTree, type Checkpoint, type NoteKey } from "./note.ts";

export interface ProofBundle {
  checkpoint: string;
  index: number;
  leaf: Uint8Array;
  proof: Uint8Array[];
}

function hashes(v: Json | undefined, what: string): Uint8Array[] {
  if (v === null || v === undefined) return [];
  const out = Array.isArray(v) ? v.map((h) => (typeof h === "string" ? fromBase64(h) : null)) : [null];
  if (out.some((h) => h === null || h.length !== 32)) throw new Error(`${what}: a proof hash is not a base64 SHA-256 hash`);
  return out as Uint8Array[];
}

/** bundleOf reads a proof bundle's JSON. */
export function bundleOf(v: Json): ProofBundle {
  const what = "not a proof bundle";
  if (!isObject(v)) throw new Error(what);
  onlyMembers(v, ["checkpoint", "index", "leaf", "proof"], "the proof bundle");
  const leaf = typeof v["leaf"] === "string" ? fromBase64(v["leaf"]) : null;
  if (typeof v["checkpoint"] !== "string" || !Number.isSafeInteger(v["index"]) || !leaf) throw new Error(what);
  return { checkpoint: v["checkpoint"], index: v["index"] as number, leaf, proof: hashes(v["proof"], what) };
}

/** verifyBundle checks the bundle's checkpoint with key and its leaf's
 * inclusion in the checkpoint's tree; it throws saying why not. */
export async function verifyBundle(b: ProofBundle, key: NoteKey): Promise<Checkpoint> {
  const c = await openCheckpoint(b.checkpoint, key);
  await checkInclusion(b.proof, c.size, c.root, b.index, await leafHash(b.leaf));
  return c;
}

export interface ConsistencyProof {
  from: number;
  to: number;
  proof: Uint8Array[];
}

/** consistencyOf reads a consistency proof's JSON. */
export function consistencyOf(v: Json): ConsistencyProof {
  const what = "not a consistency proof";
  if (!isObject(v)) throw new Error(what);
  onlyMembers(v, ["from", "to", "proof"], "the consistency proof");
  const from = v["from"] ?? 0;
  const to = v["to"] ?? 0;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new Error(what);
  return { from: from as number, to: to as number, proof: hashes(v["proof"], what) };
}

const emptyRoot = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";

/** checkExtends throws unless the tree of b extends that of a: the same
 * root at the same size (else the log forked), or p proving the larger
 * extends the smaller, a.size <= b.size. */
export async function checkExtends(a: Checkpoint, b: Checkpoint, p: ConsistencyProof | null): Promise<void> {
  if (a.size === b.size) {
    if (!sameTree(a, b)) throw new Error(`the log forked: two checkpoints of size ${a.size} with different roots`);
    return;
  }
  if (a.size > b.size) throw new Error(`the older checkpoint (size ${a.size}) is larger than the newer (size ${b.size})`);
  if (a.size === 0) {
    if (btoa(String.fromCharCode(...a.root)) !== emptyRoot) throw new Error("the checkpoint of the empty tree has another root");
    return;
  }
  if (!p || p.from !== a.size || p.to !== b.size) throw new Error(`no consistency proof from ${a.size} to ${b.size}`);
  await checkConsistency(p.proof, a.size, a.root, b.size, b.root);
}

/** verifyConsistency checks two signed checkpoints with key and that the
 * newer extends the older, as the auditor's command line does: between
 * two sizes, only with a proof between exactly those sizes. */
export async function verifyConsistency(older: string, newer: string, proof: ConsistencyProof | null, key: NoteKey): Promise<void> {
  const a = await openCheckpoint(older, key).catch((e: Error) => Promise.reject(new Error("older checkpoint: " + e.message)));
  const b = await openCheckpoint(newer, key).catch((e: Error) => Promise.reject(new Error("newer checkpoint: " + e.message)));
  await checkExtends(a, b, proof);
  if (a.size !== b.size && (proof?.from !== a.size || proof.to !== b.size)) {
    throw new Error(`the proof is not from ${a.size} to ${b.size}`);
  }
}
