// The TypeScript verifier on every vector the Go side writes
// (internal/verifyvectors): the same verdict, case by case. Run with
// `node --test web/src/verify/verify.test.mjs` (Node cannot run
// TypeScript: esbuild bundles the module first, in memory).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { build } from "esbuild";

const root = new URL("../../../", import.meta.url);
const out = await build({ entryPoints: [new URL("index.ts", import.meta.url).pathname], bundle: true, format: "esm", write: false, platform: "neutral" });
const v = await import("data:text/javascript;base64," + Buffer.from(out.outputFiles[0].text).toString("base64"));
const vectors = JSON.parse(readFileSync(new URL("internal/verifyvectors/testdata/vectors.json", root), "utf8"));

const keys = {};
for (const [name, text] of Object.entries(vectors.keys)) keys[name] = await v.parseKey(text);

function tileReader(name) {
  const tiles = vectors.tiles[name];
  return async (path) => {
    if (!(path in tiles)) throw new Error("no tile " + path);
    return Uint8Array.from(Buffer.from(tiles[path], "base64"));
  };
}

/** run gives the TS verdict of one case: verified, or failed and why. */
async function run(c) {
  const key = keys[c.key];
  const parse = (s) => v.parseStrict(s);
  switch (c.kind) {
    case "checkpoint":
      await v.openCheckpoint(c.note, key);
      return {};
    case "inclusion":
      await v.verifyBundle(v.bundleOf(parse(c.bundle)), key);
      return {};
    case "consistency":
      await v.verifyConsistency(c.older, c.newer, c.proof ? v.consistencyOf(parse(c.proof)) : null, key);
      return {};
    case "record": {
      const bad = await v.checkRecord(v.recordOf(parse(c.record), [...v.recordMembers, ...v.storeMembers]));
      if (bad) throw new Error(bad);
      return {};
    }
    case "history": {
      const verdicts = await v.verifyHistory(c.records.map(parse), (c.bundles ?? []).map((b) => v.bundleOf(parse(b))), key);
      const failed = verdicts.find((x) => x.status === "Failed");
      if (failed) throw new Error(`version ${failed.version}: ${failed.reason}`);
      const proven = verdicts.filter((x) => x.status === "Verified").length;
      assert.equal(verdicts.filter((x) => x.status === "Pending").length, verdicts.length - proven);
      return { proven };
    }
    case "export": {
      await v.verifyExport(c.export, key, tileReader(c.tiles));
      if (c.coversTree) await v.verifyExport(c.export, key); // no network: the export holds the whole tree
      return {};
    }
  }
  throw new Error("unknown kind " + c.kind);
}

for (const c of vectors.cases) {
  test(`${c.kind}: ${c.name} (Go: ${c.verdict})`, async () => {
    let got = "verified";
    let reason = "";
    let proven;
    try {
      ({ proven } = await run(c));
    } catch (err) {
      got = "failed";
      reason = err.message;
    }
    assert.equal(got, c.verdict, `TS ${got} (${reason}), Go ${c.verdict} (${c.reason ?? ""})`);
    if (c.kind === "history" && got === "verified") assert.equal(proven, c.proven ?? 0);
  });
}

test("an export that does not hold the whole tree needs the tiles", async () => {
  const c = vectors.cases.find((x) => x.name === "NDJSON export of one todo");
  await assert.rejects(v.verifyExport(c.export, keys[c.key]), /tiles are needed/);
});

test("an export of erased versions counts the fields erased and the records showing them", async () => {
  const c = vectors.cases.find((x) => x.name === "NDJSON export of a todo with every personal value erased");
  const rep = await v.verifyExport(c.export, keys[c.key], tileReader(c.tiles));
  assert.deepEqual([rep.erasedFields, rep.erasedRecords], [9, 3]); // title, notes and tags of three versions
  assert.match(rep.summary, /9 fields erased in 3 records/);
});

test("an export with an erasure's entry counts it apart from the versions", async () => {
  for (const name of ["NDJSON export with an erasure entry", "CSV export with an erasure entry"]) {
    const c = vectors.cases.find((x) => x.name === name);
    const rep = await v.verifyExport(c.export, keys[c.key], tileReader(c.tiles));
    assert.deepEqual([rep.count, rep.erasures, rep.erasedRecords], [4, 1, 3], name);
    assert.match(rep.summary, /1 erasure entries, every version in the log/);
  }
});

test("a DER ECDSA signature becomes r||s; other encodings are refused", () => {
  const der = Uint8Array.from([0x30, 0x08, 0x02, 0x02, 0x00, 0x80, 0x02, 0x02, 0x01, 0x02]);
  const raw = v.rawECDSA(der);
  assert.equal(raw[31], 0x80);
  assert.equal(raw[62], 0x01);
  assert.equal(raw[63], 0x02);
  assert.equal(v.rawECDSA(Uint8Array.from([0x30, 0x08, 0x02, 0x02, 0x00, 0x01, 0x02, 0x02, 0x01, 0x02])), null, "a needless leading zero");
  assert.equal(v.rawECDSA(Uint8Array.from([0x30, 0x09, 0x02, 0x02, 0x00, 0x80, 0x02, 0x02, 0x01, 0x02, 0x00])), null, "trailing bytes");
});

/** memoryStore is localStorage's interface over a Map. */
function memoryStore() {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, val) => void m.set(k, val), m };
}

test("the newest checkpoint seen is remembered per origin; a rollback and a fork are inconsistencies", async () => {
  const key = keys.ed25519;
  const grow = vectors.cases.find((x) => x.name.startsWith("consistency from 5 to"));
  const proofs = { [`${5}-${JSON.parse(grow.proof).to}`]: v.consistencyOf(v.parseStrict(grow.proof)) };
  const prove = async (from, to) => proofs[`${from}-${to}`];
  const older = await v.openCheckpoint(grow.older, key);
  const newer = await v.openCheckpoint(grow.newer, key);
  const store = memoryStore();
  const mem = new v.CheckpointMemory(store);
  assert.ok((await mem.observe(older, key, prove, true)).ok);
  assert.equal(mem.newest(key.name), grow.older);
  assert.ok((await mem.observe(newer, key, prove, true)).ok);
  assert.equal(mem.newest(key.name), grow.newer);
  assert.ok((await mem.observe(older, key, prove, false)).ok, "an older checkpoint in a proof is consistent");
  assert.equal(mem.newest(key.name), grow.newer, "and does not replace the newest");
  const rollback = await mem.observe(older, key, prove, true);
  assert.equal(rollback.ok, false);
  assert.equal(rollback.inconsistency.seen, grow.newer);
  assert.equal(rollback.inconsistency.offered, grow.older);
  const fork = vectors.cases.find((x) => x.name === "a fork: two roots of one size");
  const forked = await v.openCheckpoint(fork.newer, key);
  const r = await mem.observe(forked, key, prove, true);
  assert.equal(r.ok, false);
  assert.match(r.inconsistency.reason, /forked/);
  assert.equal(mem.newest(key.name), grow.newer, "an inconsistent checkpoint is never remembered");
});

test("an altered version fails alone: the others keep their own verdicts", async () => {
  const c = vectors.cases.find((x) => x.name === "history: third encoding, a tag removed");
  const verdicts = await v.verifyHistory(c.records.map(v.parseStrict), c.bundles.map((b) => v.bundleOf(v.parseStrict(b))), keys[c.key]);
  assert.deepEqual(verdicts.map((x) => x.status), ["Verified", "Failed", "Verified", "Pending"]);
  assert.match(verdicts[1].reason, /version 2 does not match its hash: field tags does not match its commitment/);
});

test("a version the server marks unverified fails alone, on the verifier's own check", async () => {
  const c = vectors.cases.find((x) => x.name === "history: third encoding, a tag removed");
  const records = c.records.map(v.parseStrict);
  records[1] = { ...records[1], unverified: "version 2 does not match its hash" };
  const verdicts = await v.verifyHistory(records, c.bundles.map((b) => v.bundleOf(v.parseStrict(b))), keys[c.key]);
  assert.deepEqual(verdicts.map((x) => x.status), ["Verified", "Failed", "Verified", "Pending"]);
  assert.match(verdicts[1].reason, /field tags does not match its commitment/);
});
