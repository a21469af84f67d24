// A todo's history checked version by version: each version's hash from
// its own content, its link to the version before, and its leaf in the
// log under a signed checkpoint. Each version gets its own verdict, so
// one altered record fails alone while the others stay verified.

import { equal } from "./bytes.ts";
import { checkRecord, recordMembers, recordOf, type AuditRecord } from "./chain.ts";
import type { Json, JsonObject } from "./json.ts";
import { hashOf, headerOf, leafOf, namedVersion } from "./leaf.ts";
import type { Checkpoint, NoteKey } from "./note.ts";
import { verifyBundle, type ProofBundle } from "./proof.ts";

export type Status = "Verified" | "Pending" | "Failed";

export interface Verdict {
  version: number;
  status: Status;
  /** reason says, in words, why a version failed or is pending. */
  reason: string;
  /** checkpoint is the one whose tree holds the version, once verified. */
  checkpoint?: Checkpoint;
}

/** historyMembers are a history item's: the record's, what it changed
 * from the version before, and the server's word that it does not match
 * its hash (`unverified`), neither of which the hash covers: the verifier
 * derives changes from the verified content, and finds for itself whether
 * a version matches. */
const historyMembers = [...recordMembers, "changes", "unverified"];

/** verdictOf checks one version; prev is the version before it (null for
 * the first record of the answer, undefined when it is missing). */
async function verdictOf(r: AuditRecord & { raw: JsonObject }, prev: AuditRecord | null | undefined,
  bundle: ProofBundle | undefined, key: NoteKey): Promise<Verdict> {
  const failed = (reason: string): Verdict => ({ version: r.version, status: "Failed", reason });
  const bad = await checkRecord(r);
  if (bad) return failed(`the content of version ${r.version} does not match its hash: ${bad}`);
  const entity = r.entity as JsonObject;
  const first = prev === null;
  if (first && r.version !== 1) return failed(`the history does not start at version 1 but at ${r.version}`);
  if (prev === undefined) return failed(`version ${r.version - 1} is not the version before it, so its link cannot be checked`);
  const moved = first && r.operation === "move" && typeof entity["movedFrom"] === "string" && entity["movedFrom"] !== "";
  if (!moved && r.prevHash !== (prev?.hash ?? "")) {
    return failed(first ? "the first version links to a version before it" : `its prevHash is not the hash of version ${r.version - 1}`);
  }
  if (!bundle) return { version: r.version, status: "Pending", reason: "not yet in a checkpoint of the log" };
  let c: Checkpoint;
  try {
    c = await verifyBundle(bundle, key);
    if (!equal(leafOf(r, headerOf(bundle.leaf)), bundle.leaf)) {
      return failed(`the logged leaf is not this version's (the log holds another hash${namedVersion(bundle.leaf) ? " or time" : ""} for version ${r.version})`);
    }
  } catch (err) {
    return failed((err as Error).message);
  }
  return { version: r.version, status: "Verified", reason: "", checkpoint: c };
}

/** verifyHistory gives the verdict of each version of a history (records
 * as served, oldest first, from version 1 or from a move) with the proof
 * bundles known (a version without one is Pending). A bundle is of the
 * version it was asked for (`asked`, its version by bundle), else of the
 * one its leaf names (the first leaf encoding), else of the record with
 * the hash its leaf holds. It throws when the answer itself is not a
 * history: a record that does not decode, or a bundle of a version it
 * does not hold. */
export async function verifyHistory(records: Json[], bundles: ProofBundle[], key: NoteKey,
  asked: Map<ProofBundle, number> = new Map()): Promise<Verdict[]> {
  const rs = records.map((o) => recordOf(o, historyMembers));
  const byVersion = new Map<number, ProofBundle>();
  for (const [i, pb] of bundles.entries()) {
    const named = namedVersion(pb.leaf);
    const v = asked.get(pb) ?? (Number.isNaN(named) ? rs.find((r) => r.hash === hashOf(pb.leaf))?.version : named);
    if (v === undefined || !rs.some((r) => r.version === v)) throw new Error(`proof bundle ${i + 1} is of a version the history does not hold`);
    byVersion.set(v, pb);
  }
  const out: Verdict[] = [];
  for (const [i, r] of rs.entries()) {
    const prev = i === 0 ? null : rs[i - 1]!.version === r.version - 1 ? rs[i - 1] : undefined;
    out.push(await verdictOf(r, prev, byVersion.get(r.version), key));
  }
  return out;
}
