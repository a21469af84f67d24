// The hash chain of a todo's versions, recomputed from each version's own
// content in every encoding the product has written (docs/chain.md). Each
// encoding is one entry of `encodings`: a new one is one more entry.

import { concat, hex, isLowerHex, sha256, subtle, unhex, utf8 } from "./bytes.ts";
import { isObject, onlyMembers, type Json, type JsonObject } from "./json.ts";
import { canonicalTime } from "./time.ts";

type Kind = "string" | "int" | "bool" | "time" | "timePtr" | "strings";

/** properties are the todo's committed properties and how each is written:
 * every property of the todo but the chain links, in the Go struct's order. */
export const properties: readonly (readonly [string, Kind])[] = [
  ["id", "string"], ["type", "string"], ["userId", "string"], ["category", "string"], ["title", "string"],
  ["notes", "string"], ["dueDate", "timePtr"], ["tags", "strings"], ["isCompleted", "bool"], ["version", "int"],
  ["createdAt", "time"], ["updatedAt", "time"], ["lastOperation", "string"], ["updatedBy", "string"],
  ["movedFrom", "string"], ["movingTo", "string"], ["partitionKey", "string"],
];

/** editable are the user-editable properties; an erasure erases only the
 * personal ones among them (title, notes and tags). */
export const editable: readonly string[] = ["category", "title", "notes", "dueDate", "tags", "isCompleted"];

/** personal are the fields of a todo that hold its owner's own free text:
 * the ones an erasure erases, every one together. */
export const personal: readonly string[] = ["title", "notes", "tags"];

/** links are the entity's chain links, allowed in a snapshot, never committed. */
const links = ["chain", "prevHash", "hash"];

/** Canon writes length-prefixed fields: each as its byte length in decimal,
 * a colon and its bytes. */
class Canon {
  private parts: Uint8Array[] = [];
  field(s: string): this {
    return this.bytes(utf8(s));
  }
  bytes(b: Uint8Array): this {
    this.parts.push(utf8(`${b.length}:`), b);
    return this;
  }
  raw(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
  done(): Uint8Array {
    return concat(...this.parts);
  }
}

/** A committed value: its canonical bytes, and whether it is the zero value
 * (what an erased field must hold). */
interface Value {
  bytes: Uint8Array;
  zero: boolean;
}

/** decodeEntity reads a snapshot as strictly as the Go side does and gives
 * each property's canonical bytes; it throws saying why it cannot. */
export function decodeEntity(o: Json | undefined): Map<string, Value> {
  if (!isObject(o)) throw new Error("entity does not decode as a todo: not an object");
  onlyMembers(o, [...properties.map(([n]) => n), ...links], "entity");
  const out = new Map<string, Value>();
  for (const [name, kind] of properties) {
    const v = o[name] ?? null;
    const bad = (): Error => new Error(`entity does not decode as a todo: ${name} is not a ${kind}`);
    const c = new Canon();
    let zero: boolean;
    switch (kind) {
      case "string":
        if (v !== null && typeof v !== "string") throw bad();
        c.field(v ?? "");
        zero = !v;
        break;
      case "int":
        if (v !== null && !Number.isSafeInteger(v)) throw bad();
        c.field(String(v ?? 0));
        zero = !v;
        break;
      case "bool":
        if (v !== null && typeof v !== "boolean") throw bad();
        c.field(String(v ?? false));
        zero = !v;
        break;
      case "time":
      case "timePtr":
        if (v !== null && typeof v !== "string") throw bad();
        c.field(v === null ? "" : canonicalTime(v));
        zero = kind === "time" ? v === null || canonicalTime(v) === "" : v === null;
        break;
      case "strings":
        if (v !== null && !(Array.isArray(v) && v.every((x) => typeof x === "string"))) throw bad();
        c.field(String(v?.length ?? 0));
        for (const tag of (v ?? []) as string[]) c.field(tag);
        zero = v === null;
        break;
    }
    out.set(name, { bytes: c.done(), zero });
  }
  return out;
}

export interface Commitment {
  salt?: string;
  digest: string;
  erased?: boolean;
}

/** The content of one version that its hash covers. */
export interface Audited {
  entityType: string;
  entityId: string;
  version: number;
  operation: string;
  actor: string;
  dateCreatedUtc: string;
  chain: number;
  entity: Map<string, Value>;
  commitments?: Record<string, Commitment>;
}

/** A chain encoding: how a version's hash is computed and, for those that
 * commit to each field, how a seed gives a field's salt. */
interface Encoding {
  hash(a: Audited, prevHash: string): Promise<string>;
  salt?(seed: Uint8Array, name: string): Promise<Uint8Array>;
}

const saltBytes = 16;

function head(c: Canon, a: Audited): Canon {
  return c.field(a.entityType).field(a.entityId).field(String(a.version)).field(a.operation).field(a.actor)
    .field(canonicalTime(a.dateCreatedUtc));
}

async function sum(c: Canon): Promise<string> {
  return hex(await sha256(c.done()));
}

/** committedHash is the hash of the encodings that commit to each field:
 * the digests of the fields in byte order of their names, each as written
 * by digestField ("" when a digest cannot be written so). */
async function committedHash(a: Audited, prevHash: string, digestField: (c: Canon, d: string) => boolean): Promise<string> {
  const c = new Canon().field(prevHash).field(String(a.chain));
  const names = Object.keys(a.commitments ?? {}).sort();
  head(c, a).field(String(names.length));
  for (const name of names) {
    if (!digestField(c.field(name), a.commitments![name]!.digest)) return "";
  }
  return sum(c);
}

const encodings: Record<number, Encoding> = {
  1: {
    // The whole entity as one canonical string, its field list frozen.
    async hash(a, prevHash) {
      const c = head(new Canon().field(prevHash), a);
      for (const [name] of properties) c.raw(a.entity.get(name)!.bytes);
      return sum(c);
    },
  },
  2: {
    hash: (a, prevHash) => committedHash(a, prevHash, (c, d) => (c.field(d), true)),
    async salt(seed, name) {
      const key = await subtle.importKey("raw", seed as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return new Uint8Array(await subtle.sign("HMAC", key, utf8(name) as BufferSource)).slice(0, saltBytes);
    },
  },
  3: {
    hash: (a, prevHash) =>
      committedHash(a, prevHash, (c, d) => {
        if (!isLowerHex(d, 32)) return false;
        c.bytes(unhex(d)!);
        return true;
      }),
    // AES-128 CBC-MAC of the name's length, the name and zeros to whole
    // blocks: the last block of its CBC encryption under a zero IV.
    async salt(seed, name) {
      const n = utf8(name);
      const msg = new Uint8Array(Math.ceil((1 + n.length) / 16) * 16);
      msg[0] = n.length;
      msg.set(n, 1);
      const key = await subtle.importKey("raw", seed as BufferSource, "AES-CBC", false, ["encrypt"]);
      const out = new Uint8Array(await subtle.encrypt({ name: "AES-CBC", iv: new Uint8Array(16) }, key, msg));
      return out.slice(msg.length - 16, msg.length);
    },
  },
};

function encodingOf(chain: number): Encoding {
  const e = encodings[chain === 0 ? 1 : chain];
  if (!e) throw new Error(`unknown chain encoding ${chain}`);
  return e;
}

async function digest(salt: Uint8Array, name: string, v: Value): Promise<string> {
  return hex(await sha256(new Canon().bytes(salt).field(name).bytes(v.bytes).done()));
}

/** fromSeed gives the commitments a stored version's seed stands for. */
async function fromSeed(a: Audited, seedHex: string): Promise<Record<string, Commitment>> {
  const e = encodingOf(a.chain);
  if (!e.salt) throw new Error(`a version of chain encoding ${a.chain} has a seed`);
  if (a.commitments) throw new Error("a version has both a seed and commitments");
  if (!isLowerHex(seedHex, 16)) throw new Error("its seed is not 16 bytes in lowercase hex");
  const seed = unhex(seedHex)!;
  const out: Record<string, Commitment> = {};
  for (const [name] of properties) {
    const salt = await e.salt(seed, name);
    out[name] = { salt: hex(salt), digest: await digest(salt, name, a.entity.get(name)!) };
  }
  return out;
}

async function checkCommitments(a: Audited): Promise<void> {
  const c = a.commitments!;
  for (const name of Object.keys(c)) {
    if (!properties.some(([n]) => n === name)) throw new Error(`it commits to ${JSON.stringify(name)}, which no todo has`);
  }
  for (const [name] of properties) {
    const com = c[name];
    const v = a.entity.get(name)!;
    if (!com) throw new Error(`field ${name} is not committed`);
    if (com.erased) {
      if (com.salt || !v.zero) throw new Error(`field ${name} is erased but keeps a salt or a value`);
      continue;
    }
    const salt = unhex(com.salt ?? "");
    if (!salt || salt.length < saltBytes) throw new Error(`field ${name} has no valid salt`);
    if ((await digest(salt, name, v)) !== com.digest) throw new Error(`field ${name} does not match its commitment`);
  }
}

function str(o: JsonObject, name: string, what: string): string {
  const v = o[name] ?? "";
  if (typeof v !== "string") throw new Error(`${what}: ${name} is not a string`);
  return v;
}

function int(o: JsonObject, name: string, what: string): number {
  const v = o[name] ?? 0;
  if (!Number.isSafeInteger(v)) throw new Error(`${what}: ${name} is not an integer`);
  return v as number;
}

function commitmentsOf(v: Json | undefined): Record<string, Commitment> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new Error("commitments are not an object");
  const out: Record<string, Commitment> = {};
  for (const [name, c] of Object.entries(v)) {
    if (!isObject(c)) throw new Error(`the commitment of ${name} is not an object`);
    onlyMembers(c, ["salt", "digest", "erased"], `the commitment of ${name}`);
    const salt = c["salt"] ?? "";
    if (typeof salt !== "string" || typeof c["digest"] !== "string" || typeof (c["erased"] ?? false) !== "boolean") {
      throw new Error(`the commitment of ${name} is not a salt, a digest and erased`);
    }
    out[name] = { salt, digest: c["digest"], erased: c["erased"] === true };
  }
  return out;
}

/** recordMembers are the members of an audit record; a record as stored
 * may also carry the store's system properties (storeMembers). */
export const recordMembers = ["id", "entityKey", "entityId", "entityType", "version", "operation", "entity",
  "dateCreatedUtc", "actor", "prevHash", "hash", "chain", "seed", "commitments", "erased", "owner", "category", "at"];
export const storeMembers = ["_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"];

/** Record is an audit record's own description of itself and its links. */
export interface AuditRecord {
  id: string;
  entityKey: string;
  entityId: string;
  entityType: string;
  version: number;
  operation: string;
  dateCreatedUtc: string;
  actor: string;
  prevHash: string;
  hash: string;
  chain: number;
  entity: Json | undefined;
}

/** recordOf reads an audit record's members, refusing any not in allowed. */
export function recordOf(o: Json, allowed: readonly string[] = recordMembers): AuditRecord & { raw: JsonObject } {
  if (!isObject(o)) throw new Error("not an audit record: not an object");
  onlyMembers(o, allowed, "the audit record");
  const w = "the audit record";
  const at = o["dateCreatedUtc"] ?? "0001-01-01T00:00:00Z";
  if (typeof at !== "string") throw new Error(`${w}: dateCreatedUtc is not a time`);
  return {
    id: str(o, "id", w), entityKey: str(o, "entityKey", w), entityId: str(o, "entityId", w), entityType: str(o, "entityType", w),
    version: int(o, "version", w), operation: str(o, "operation", w), dateCreatedUtc: at, actor: str(o, "actor", w),
    prevHash: str(o, "prevHash", w), hash: str(o, "hash", w), chain: int(o, "chain", w), entity: o["entity"], raw: o,
  };
}

/** erasedNames lists the fields a record shows erased, in the order of
 * the todo's properties. */
export function erasedNames(r: AuditRecord & { raw: JsonObject }): string[] {
  const c = commitmentsOf(r.raw["commitments"]) ?? {};
  return properties.map(([n]) => n).filter((n) => c[n]?.erased === true);
}

/** personalValues says whether a personal field of a snapshot holds a
 * value: one an erasure would erase. */
export function personalValues(entity: Json | undefined): boolean {
  const e = decodeEntity(entity);
  return personal.some((n) => !e.get(n)!.zero);
}

/** checkRecord says why a record (as served with its commitments, or as
 * stored with its seed) is not what its own hash covers, or gives null. */
export async function checkRecord(r: AuditRecord & { raw: JsonObject }): Promise<string | null> {
  try {
    const a: Audited = {
      entityType: r.entityType, entityId: r.entityId, version: r.version, operation: r.operation, actor: r.actor,
      dateCreatedUtc: r.dateCreatedUtc, chain: r.chain, entity: decodeEntity(r.entity), commitments: commitmentsOf(r.raw["commitments"]),
    };
    const e = encodingOf(a.chain);
    const seed = str(r.raw, "seed", "the audit record");
    if (seed !== "") {
      a.commitments = await fromSeed(a, seed); // derived: only the hash is left to check
    } else if (!e.salt && a.commitments) {
      throw new Error("a version of the first chain encoding has commitments");
    } else if (e.salt) {
      await checkCommitments({ ...a, commitments: a.commitments ?? {} });
    }
    if ((await e.hash(a, r.prevHash)) !== r.hash) throw new Error("its content does not match its hash");
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
