// The log's leaf of a version: what the log commits to, rebuilt from the
// version's record. Each leaf encoding is one entry of `leafEncodings`, by
// its header line: a new one is one more entry.

import { utf8 } from "./bytes.ts";
import type { AuditRecord } from "./chain.ts";
import { timeKey, zeroTime } from "./time.ts";

const hex64 = /^[0-9a-f]{64}$/;

/** The leaf's parts, from a record. */
function partsOf(r: AuditRecord): [string, string][] {
  const prefix = r.entityType + "/";
  const suffix = "/" + r.entityId;
  const owner = r.entityKey.startsWith(prefix) && r.entityKey.endsWith(suffix) ? r.entityKey.slice(prefix.length, -suffix.length) : "";
  const at = timeKey(r.dateCreatedUtc);
  if (r.entityType !== "todo") throw new Error(`entity type ${JSON.stringify(r.entityType)} is not "todo"`);
  if (owner === "" || owner.includes("/")) throw new Error(`entity key ${JSON.stringify(r.entityKey)} is not todo/<owner>/${r.entityId}`);
  if (r.entityId === "" || r.entityId.includes("/")) throw new Error(`invalid id ${JSON.stringify(r.entityId)}`);
  if (r.version < 1) throw new Error(`invalid version ${r.version}`);
  if (!hex64.test(r.hash)) throw new Error(`hash ${JSON.stringify(r.hash)} is not 64 lowercase hex digits`);
  if (r.prevHash !== "" && !hex64.test(r.prevHash)) throw new Error(`prevHash ${JSON.stringify(r.prevHash)} is not empty or 64 lowercase hex digits`);
  if (at === zeroTime) throw new Error("no time");
  return [["type", r.entityType], ["owner", owner], ["id", r.entityId], ["version", String(r.version)],
    ["hash", r.hash], ["prev", r.prevHash], ["at", at]];
}

/** leafEncodings build a record's leaf bytes by the leaf's header line:
 * the first names the version (entity, version, links and time), the
 * second holds its hash alone, which names nothing to a stranger. */
const leafEncodings: Record<string, (r: AuditRecord) => Uint8Array> = {
  "todoaudit/leaf/v1": (r) => utf8("todoaudit/leaf/v1\n" + partsOf(r).map(([k, v]) => `${k} ${v}\n`).join("")),
  "todoaudit/leaf/v2": (r) => utf8("todoaudit/leaf/v2\n" + partsOf(r).filter(([k]) => k === "hash").map(([k, v]) => `${k} ${v}\n`).join("")),
};

/** currentLeaf is the encoding the log writes now. */
export const currentLeaf = "todoaudit/leaf/v2";

/** leafHeaders are the encodings a log may hold a version's leaf in. */
export const leafHeaders = Object.keys(leafEncodings);

/** leafOf rebuilds r's leaf in the encoding named header (the first line of
 * a logged leaf), or the current one; it throws when r has no such leaf. */
export function leafOf(r: AuditRecord, header = currentLeaf): Uint8Array {
  const enc = leafEncodings[header];
  if (!enc) throw new Error(`unknown leaf encoding ${JSON.stringify(header)}`);
  return enc(r);
}

/** namedVersion is the version a logged leaf names (the first encoding),
 * or NaN for one that names none. */
export function namedVersion(leaf: Uint8Array): number {
  const m = /^todoaudit\/leaf\/v1\n(?:.*\n)*?version (\d+)\n/.exec(new TextDecoder().decode(leaf));
  return m ? Number(m[1]) : NaN;
}

/** hashOf is the chain hash a logged leaf holds, or "" when it holds none. */
export function hashOf(leaf: Uint8Array): string {
  const m = /\nhash ([0-9a-f]{64})\n/.exec(new TextDecoder().decode(leaf));
  return m ? m[1]! : "";
}

/** headerOf is the first line of leaf bytes. */
export function headerOf(leaf: Uint8Array): string {
  const nl = leaf.indexOf(10);
  return new TextDecoder().decode(leaf.subarray(0, nl < 0 ? leaf.length : nl));
}
