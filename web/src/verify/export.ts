// An export (NDJSON or CSV, GET .../export) checked as the auditor's
// command line checks it: the manifest against the lines before it, each
// record's hash from its content, the links between the versions of each
// todo it holds, what its records show erased (personal fields only, every
// one of a version, every version before the newest erased), the records
// against the manifest's filters, the manifest's checkpoint, and every
// version's leaf in the checkpoint's tree. With no network at all,
// inclusion is proven when the export holds every leaf of that tree, all
// of one leaf encoding; otherwise it needs the log's tiles. The entry of an erasure (an activity
// or admin export shows them) is no version: no chain or log covers it, so
// it is checked against its own hash, the SHA-256 of its entity, and
// counted among the manifest's records without a logIndex.

import { hex, sha256, utf8 } from "./bytes.ts";
import { checkRecord, erasedNames, personal, personalValues, recordMembers, recordOf, type AuditRecord } from "./chain.ts";
import { ownerOf, Seen } from "./filters.ts";
import { isObject, onlyMembers, parseStrict, parseStrictMembers, type Json, type JsonObject } from "./json.ts";
import { leafHeaders, leafOf } from "./leaf.ts";
import { leafHash, rootAround, type TileReader } from "./merkle.ts";
import { equal } from "./bytes.ts";
import { describe, openCheckpoint, type Checkpoint, type NoteKey } from "./note.ts";
import { canonicalTime } from "./time.ts";

export interface ExportReport {
  format: string;
  count: number;
  links: number;
  /** erasedFields counts the fields shown erased, in erasedRecords
   * records: each verified by its digest alone. */
  erasedFields: number;
  erasedRecords: number;
  /** erasures counts the entries of erasures, each checked against its
   * own hash. */
  erasures: number;
  checkpoint: Checkpoint;
  summary: string;
}

const csvHeader = ["id", "entityKey", "entityId", "entityType", "version", "operation", "dateCreatedUtc", "actor",
  "prevHash", "hash", "entity", "chain", "commitments", "logIndex"];

interface Ref {
  id: string;
  entityKey: string;
  version: number;
  at: string;
  hash: string;
}

/** One record read, with its leaf's index (null when not in the log yet)
 * and its entity's text as sent. */
interface Row {
  record: Json;
  logIndex: number | null;
  entity: string;
}

/** ndjson splits an NDJSON export into its record rows, the bytes they
 * cover and the manifest. */
function ndjson(text: string): { rows: Row[]; covered: string; manifest: Json } {
  const lines = text.split(/(?<=\n)/);
  const rows: Row[] = [];
  for (const [i, line] of lines.entries()) {
    const where = `line ${i + 1}`;
    if (line.startsWith('{"manifest":')) {
      if (i !== lines.length - 1) throw new Error(`${where}: the manifest is not the last line`);
      const m = parseStrict(line);
      if (!isObject(m)) throw new Error(`${where}: the manifest does not decode`);
      onlyMembers(m, ["manifest"], "the manifest line");
      return { rows, covered: lines.slice(0, i).join(""), manifest: m["manifest"] ?? null };
    }
    let o: Json;
    const members = new Map<string, string>();
    try {
      o = parseStrictMembers(line, members);
    } catch (err) {
      throw new Error(`${where} is not an audit record: ${(err as Error).message}`);
    }
    if (!isObject(o)) throw new Error(`${where} is not an audit record`);
    const { logIndex, ...record } = o;
    if (logIndex !== undefined && (!Number.isSafeInteger(logIndex) || (logIndex as number) < 0)) throw new Error(`${where}: logIndex is not a leaf index`);
    rows.push({ record, logIndex: (logIndex as number | undefined) ?? null, entity: members.get("entity") ?? "" });
  }
  throw new Error("the export ends without its manifest: it is incomplete");
}

/** csvRows reads RFC 4180 rows as Go's encoding/csv writes them, with the
 * end of each row (an index into text). */
function csvRows(text: string): { fields: string[]; end: number }[] {
  const rows: { fields: string[]; end: number }[] = [];
  let at = 0;
  while (at < text.length) {
    const fields: string[] = [];
    for (;;) {
      let f = "";
      if (text[at] === '"') {
        at++;
        for (;;) {
          const q = text.indexOf('"', at);
          if (q < 0) throw new Error(`row ${rows.length + 1}: a quoted field does not end`);
          f += text.slice(at, q);
          at = q + 1;
          if (text[at] !== '"') break;
          f += '"';
          at++;
        }
      } else {
        const m = /[^,\n"]*/y;
        m.lastIndex = at;
        f = m.exec(text)![0];
        at += f.length;
        if (text[at] === '"') throw new Error(`row ${rows.length + 1}: a bare quote in a field`);
      }
      fields.push(f);
      if (text[at] === ",") {
        at++;
        continue;
      }
      if (text[at] === "\n" || at >= text.length) break;
      throw new Error(`row ${rows.length + 1}: extraneous text after a quoted field`);
    }
    if (fields.length !== csvHeader.length) throw new Error(`row ${rows.length + 1}: wrong number of fields`);
    at++;
    rows.push({ fields, end: Math.min(at, text.length) });
  }
  return rows;
}

function csv(text: string): { rows: Row[]; covered: string; manifest: Json } {
  const all = csvRows(text);
  const rows: Row[] = [];
  if (all.length === 0 || all[0]!.fields.some((f, i) => f !== csvHeader[i])) throw new Error("row 1 is not the header of an export");
  for (const [i, { fields: r }] of all.entries()) {
    if (i === 0) continue;
    const where = `row ${i + 1}`;
    if (r[0] === "#manifest") {
      if (r.slice(2).some((f) => f !== "")) throw new Error(`${where}: the manifest row has more than two columns`);
      if (i !== all.length - 1) throw new Error(`${where}: the manifest is not the last row`);
      return { rows, covered: text.slice(0, all[i - 1]!.end), manifest: parseStrict(r[1]!) };
    }
    const [id, entityKey, entityId, entityType, version, operation, at, actor, prevHash, hash, entity, chain, commitments, logIndex] = r as string[];
    if (!/^-?[0-9]+$/.test(version!)) throw new Error(`${where}: version ${JSON.stringify(version)} is not a number`);
    if (chain !== "" && !/^-?[0-9]+$/.test(chain!)) throw new Error(`${where}: chain ${JSON.stringify(chain)} is not a number`);
    if (logIndex !== "" && !/^[0-9]+$/.test(logIndex!)) throw new Error(`${where}: logIndex ${JSON.stringify(logIndex)} is not a leaf index`);
    let ent: Json;
    try {
      ent = parseStrict(entity!);
    } catch (err) {
      // An erasure's entry is checked by the hash of its entity's bytes
      // alone, whatever they are.
      if (entityType !== "erasure") throw new Error(`${where}: entity does not decode as a todo: ${(err as Error).message}`);
      ent = entity!;
    }
    const record: JsonObject = { id: id!, entityKey: entityKey!, entityId: entityId!, entityType: entityType!, version: Number(version),
      operation: operation!, dateCreatedUtc: at!, actor: actor!, prevHash: prevHash!, hash: hash!, entity: ent };
    if (chain !== "") record["chain"] = Number(chain);
    if (commitments !== "") record["commitments"] = parseStrict(commitments!);
    rows.push({ record, logIndex: logIndex === "" ? null : Number(logIndex), entity: entity! });
  }
  throw new Error("the export ends without its manifest: it is incomplete");
}

function refOf(v: Json | undefined, what: string): Ref | null {
  if (v === null || v === undefined) return null;
  if (!isObject(v)) throw new Error(`${what} is not a record reference`);
  onlyMembers(v, ["id", "entityKey", "version", "dateCreatedUtc", "hash"], what);
  const r = recordOf(v, ["id", "entityKey", "version", "dateCreatedUtc", "hash"]);
  return refOfRecord(r);
}

const refOfRecord = (r: AuditRecord): Ref => ({ id: r.id, entityKey: r.entityKey, version: r.version, at: canonicalTime(r.dateCreatedUtc), hash: r.hash });

/** Erasures checks what records show erased against what an erasure does:
 * it erases personal fields only, every one that holds a value, and every
 * version before it. A record rewritten to hide one value, or a field that
 * is not personal, behind "erased" fails. */
class Erasures {
  fields = 0;
  records = 0;
  /** By entity key, the newest version shown erased and the oldest with a
   * personal value kept. */
  private upTo = new Map<string, number>();
  private keptFrom = new Map<string, number>();

  /** record says why a checked record's erasure is not one an erasure
   * makes, or gives null. */
  record(r: AuditRecord & { raw: JsonObject }): string | null {
    const names = erasedNames(r);
    const kept = personalValues(r.entity);
    if (names.length === 0) {
      // The first chain encoding commits to no field separately: an
      // erasure leaves those versions as they are.
      const from = this.keptFrom.get(r.entityKey);
      if (kept && r.chain >= 2 && (from === undefined || r.version < from)) this.keptFrom.set(r.entityKey, r.version);
      return null;
    }
    if (kept) return `it shows ${names.join(", ")} erased, and keeps another personal value: an erasure erases them all`;
    const other = names.find((n) => !personal.includes(n));
    if (other !== undefined) return `it shows ${other} erased, which is not a personal field: no erasure erases it`;
    this.fields += names.length;
    this.records++;
    this.upTo.set(r.entityKey, Math.max(this.upTo.get(r.entityKey) ?? 0, r.version));
    return null;
  }

  /** check throws when a version keeps its personal values though a later
   * one of the same todo is shown erased. */
  check(): void {
    for (const [key, upTo] of this.upTo) {
      const from = this.keptFrom.get(key);
      if (from !== undefined && from < upTo) {
        throw new Error(`version ${from} of ${key} keeps its personal values, though version ${upTo} after it is shown erased: an erasure erases every version before it`);
      }
    }
  }
}

/** erasureEntry says why an erasure's entry is not one: shown with the
 * erasure's id in the governance partition, its hash the SHA-256 of its
 * entity (the run's status), and never in the log; or gives null. */
async function erasureEntry(r: AuditRecord, row: Row): Promise<string | null> {
  const name = `the erasure entry ${JSON.stringify(r.id)}`;
  if (r.id !== r.entityId || r.entityKey !== "governance" || r.operation !== "erase") {
    return `${name} is not shown as an erasure's (id, entityKey and operation)`;
  }
  if (r.hash !== hex(await sha256(utf8(row.entity)))) return `${name} is not what its hash covers`;
  if (row.logIndex !== null) return `${name} has a logIndex, though the log holds versions only`;
  return null;
}

/** erasedUser is the user an erasure's entry names (its entity is the
 * run's status): its userId, matched as Go's encoding/json matches it,
 * whatever the case of its letters, the last one that is a string. */
function erasedUser(entity: Json | undefined): string {
  let user = "";
  if (!isObject(entity)) return user;
  for (const [name, v] of Object.entries(entity)) {
    if (name.toLowerCase() === "userid" && typeof v === "string") user = v;
  }
  return user;
}

const sameRef = (a: Ref | null, b: Ref | null): boolean =>
  a === null || b === null ? a === b : a.id === b.id && a.entityKey === b.entityKey && a.version === b.version && a.at === b.at && a.hash === b.hash;

/** The form of an export whose records may show their seed in place of
 * their commitments; a manifest that names no form is of the first, in
 * which every record shows its commitments. */
const formSeeds = 2;

/** checkForm throws when the records are not shown as the manifest's form
 * shows them: a seed in the second form only, which is NDJSON's. */
function checkForm(form: Json | undefined, isNDJSON: boolean, rows: Row[]): void {
  if (form === undefined) {
    const seeded = rows.findIndex((r) => isObject(r.record) && r.record["seed"] !== undefined);
    if (seeded >= 0) throw new Error(`line ${seeded + 1} shows a record's seed, and the manifest names no form: in the first form every record shows its commitments`);
    return;
  }
  if (form !== formSeeds) throw new Error(`the manifest names form ${JSON.stringify(form)}, which is none this verifier knows (a manifest names none, or ${formSeeds})`);
  if (!isNDJSON) throw new Error(`the manifest names form ${formSeeds}, which only NDJSON exports have`);
}

/** verifyExport checks an export's text with the log's key and, when the
 * export does not hold every leaf of its checkpoint's tree, the log's
 * tiles; it throws saying why it does not verify. */
export async function verifyExport(text: string, key: NoteKey, tiles?: TileReader): Promise<ExportReport> {
  if (text === "") throw new Error("the export is empty");
  const isNDJSON = text.startsWith("{");
  const { rows, covered, manifest: mv } = isNDJSON ? ndjson(text) : csv(text);
  const versions = new Map<string, Map<number, AuditRecord>>();
  const leaves = new Map<number, Uint8Array[]>();
  let links = 0;
  const erasures = new Erasures();
  const seen = new Seen();
  let pending = 0;
  let entries = 0;
  let first: Ref | null = null;
  let last: Ref | null = null;
  for (const row of rows) {
    const r = recordOf(row.record, recordMembers);
    if (r.entityType === "erasure") {
      const bad = await erasureEntry(r, row);
      if (bad) throw new Error(bad);
      entries++;
      seen.add(r, erasedUser(r.entity), "");
      last = refOfRecord(r);
      first ??= last;
      continue;
    }
    const name = `version ${r.version} of ${r.entityKey}`;
    if (r.id !== `${r.entityId}:v${r.version}`) throw new Error(`${name} has id ${JSON.stringify(r.id)}, not the id of that version`);
    const bad = await checkRecord(r);
    if (bad) throw new Error(`${name}: ${bad}`);
    const notErasure = erasures.record(r);
    if (notErasure) throw new Error(`${name}: ${notErasure}`);
    const category = isObject(r.entity) ? r.entity["category"] : undefined;
    seen.add(r, ownerOf(r), typeof category === "string" ? category : "");
    const vs = versions.get(r.entityKey) ?? new Map<number, AuditRecord>();
    versions.set(r.entityKey, vs);
    if (vs.has(r.version)) throw new Error(`${name} is exported twice`);
    const before = vs.get(r.version - 1);
    const after = vs.get(r.version + 1);
    if (before && (links++, r.prevHash !== before.hash)) throw new Error(`the prevHash of ${name} is not the hash of version ${r.version - 1}`);
    if (after && (links++, after.prevHash !== r.hash)) throw new Error(`the prevHash of version ${r.version + 1} of ${r.entityKey} is not the hash of version ${r.version}`);
    vs.set(r.version, r);
    let encodings: Uint8Array[];
    try {
      encodings = leafHeaders.map((h) => leafOf(r, h));
    } catch (err) {
      throw new Error(`${name} has no leaf: ${(err as Error).message}`);
    }
    if (row.logIndex === null) pending++;
    else leaves.set(row.logIndex, await Promise.all(encodings.map(leafHash)));
    last = refOfRecord(r);
    first ??= last;
  }
  if (!isObject(mv)) throw new Error("the manifest does not decode");
  onlyMembers(mv, ["format", "form", "filters", "count", "first", "last", "sha256", "logCheckpoint", "pending"], "the manifest");
  const format = isNDJSON ? "application/x-ndjson" : "text/csv";
  if (mv["format"] !== format) throw new Error(`the manifest says the export is ${String(mv["format"])}, not ${isNDJSON ? "NDJSON" : "CSV"}`);
  checkForm(mv["form"], isNDJSON, rows);
  const sum = hex(await sha256(utf8(covered)));
  if (mv["sha256"] !== sum) throw new Error(`the manifest's sha256 is ${String(mv["sha256"])}, the bytes before it hash to ${sum}`);
  if (mv["count"] !== rows.length) throw new Error(`the manifest counts ${String(mv["count"])} records, the export holds ${rows.length}`);
  if (!sameRef(refOf(mv["first"], "the manifest's first"), first)) throw new Error("the manifest's first record is not the export's");
  if (!sameRef(refOf(mv["last"], "the manifest's last"), last)) throw new Error("the manifest's last record is not the export's");
  if ((mv["pending"] ?? 0) !== pending + entries) {
    throw new Error(`the manifest counts ${String(mv["pending"])} records without a logIndex, the export holds ${pending + entries}`);
  }
  seen.check(mv["filters"]);
  erasures.check();
  const note = mv["logCheckpoint"];
  if (typeof note !== "string") throw new Error(`the manifest names no log checkpoint: the ${rows.length} records cannot be checked against the log`);
  const checkpoint = await openCheckpoint(note, key).catch((e: Error) => Promise.reject(new Error("the manifest's checkpoint: " + e.message)));
  if (pending > 0) throw new Error(`${pending} of the ${rows.length} records have no logIndex: they were not in the log yet; export again once it has integrated them`);
  for (const i of leaves.keys()) {
    if (i >= checkpoint.size) throw new Error(`leaf index ${i} is outside the checkpoint's tree of size ${checkpoint.size}`);
  }
  // Without tiles, each leaf encoding is tried for every leaf in turn: a
  // tree whose leaves mix them (a log older than its newest encoding)
  // needs the tiles, which say which encoding each leaf is in.
  let placed = false;
  for (let choice = 0; !placed && choice < (tiles ? 1 : leafHeaders.length); choice++) {
    try {
      placed = equal(await rootAround(checkpoint.size, leaves, tiles, choice), checkpoint.root);
    } catch (err) {
      throw new Error(`the inclusion of the ${rows.length} records was not checked: ${(err as Error).message}`);
    }
  }
  if (!placed) throw new Error("a record is not in the log under the manifest's checkpoint" + (tiles ? "" : " (or the log's leaves mix encodings: give its tiles)"));
  return {
    format, count: rows.length, links, erasedFields: erasures.fields, erasedRecords: erasures.records, erasures: entries, checkpoint,
    summary: `export verified: ${rows.length} records (${format}, sha256 ${sum}), ${links} links between versions, `
      + `${erasures.fields} fields erased in ${erasures.records} records (checked by digest), ${entries} erasure entries, every version in the log under ${describe(checkpoint)}`,
  };
}
