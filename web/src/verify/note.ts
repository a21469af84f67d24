// C2SP signed notes and tlog-checkpoints: the log's verifier key
// (name+hash+keydata, as x/mod/sumdb/note writes it), a note's signature
// under it (Ed25519, type 0x01; ECDSA P-256 with SHA-256, type 0x02, what a
// Key Vault key signs with) and the checkpoint in the note's text.

import { concat, equal, fromBase64, hex, sha256, subtle, toBase64, utf8 } from "./bytes.ts";

/** A verifier key, ready to check signatures. */
export interface NoteKey {
  name: string;
  /** hash is the key's 32-bit C2SP key hash, which signature lines carry. */
  hash: number;
  /** fingerprint names the key to people: the SHA-256 of its bytes. */
  fingerprint: string;
  text: string;
  verify(msg: Uint8Array, sig: Uint8Array): Promise<boolean>;
}

const algEd25519 = 0x01;
const algECDSA = 0x02;

/** A key type: how its key bytes give its hash and its verification. */
interface KeyType {
  hash(name: string, key: Uint8Array): Promise<Uint8Array>;
  load(key: Uint8Array): Promise<(msg: Uint8Array, sig: Uint8Array) => Promise<boolean>>;
}

const keyTypes: Record<number, KeyType> = {
  [algEd25519]: {
    hash: (name, key) => sha256(concat(utf8(name + "\n"), key)),
    async load(key) {
      if (key.length !== 33) throw new Error("an Ed25519 key is not 32 bytes");
      const k = await subtle.importKey("raw", key.slice(1), { name: "Ed25519" }, false, ["verify"]);
      return async (msg, sig) => sig.length === 64 && subtle.verify("Ed25519", k, sig as BufferSource, msg as BufferSource);
    },
  },
  [algECDSA]: {
    hash: (_name, key) => sha256(key.slice(1)),
    async load(key) {
      const k = await subtle.importKey("spki", key.slice(1), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
      return async (msg, sig) => {
        const raw = rawECDSA(sig);
        return raw !== null && subtle.verify({ name: "ECDSA", hash: "SHA-256" }, k, raw as BufferSource, msg as BufferSource);
      };
    },
  },
};

/** parseKey reads a verifier key name+hash+base64(type || key); it throws
 * saying why it is not one. */
export async function parseKey(text: string): Promise<NoteKey> {
  text = text.trim();
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(text);
  const key = m ? fromBase64(m[3]!) : null;
  if (!m || !key || key.length < 2) throw new Error("not a verifier key name+hash+keydata");
  const type = keyTypes[key[0]!];
  if (!type) throw new Error(`unknown verifier key type ${key[0]}`);
  const h = await type.hash(m[1]!, key);
  const hash = new DataView(h.buffer).getUint32(0);
  if (hash !== parseInt(m[2]!, 16)) throw new Error("the verifier key's hash does not match its key");
  let verify: (msg: Uint8Array, sig: Uint8Array) => Promise<boolean>;
  try {
    verify = await type.load(key);
  } catch (err) {
    throw new Error(`the verifier key does not load: ${(err as Error).message}`);
  }
  return { name: m[1]!, hash, fingerprint: hex(await sha256(key)), text, verify };
}

/** rawECDSA turns an ASN.1 DER ECDSA-Sig-Value (SEQUENCE of INTEGER r and
 * INTEGER s, in their minimal encodings) into r||s of 32 bytes each, the
 * form Web Crypto verifies, or gives null. */
export function rawECDSA(der: Uint8Array): Uint8Array | null {
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2 || der[1]! > 0x7f) return null;
  const out = new Uint8Array(64);
  let at = 2;
  for (const slot of [0, 32]) {
    if (der[at] !== 0x02) return null;
    const n = der[at + 1]!;
    const v = der.subarray(at + 2, at + 2 + n);
    at += 2 + n;
    if (n === 0 || v.length !== n || v[0]! & 0x80 || (n > 1 && v[0] === 0 && !(v[1]! & 0x80))) return null;
    const int = v[0] === 0 ? v.subarray(1) : v;
    if (int.length > 32) return null;
    out.set(int, slot + 32 - int.length);
  }
  return at === der.length ? out : null;
}

/** A checkpoint: the log's origin, its tree size and root hash. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** note is the signed note it was read from. */
  note: string;
}

const sigPrefix = "\u2014 ";

/** openCheckpoint checks a signed checkpoint note with key and reads its
 * body; it throws saying why it does not verify. */
export async function openCheckpoint(note: string, key: NoteKey): Promise<Checkpoint> {
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) throw new Error("checkpoint does not verify: malformed note");
  const text = note.slice(0, split + 1);
  let mine = 0;
  for (const line of note.slice(split + 2, -1).split("\n")) {
    const m = line.startsWith(sigPrefix) ? /^(\S+) ([A-Za-z0-9+/=]+)$/.exec(line.slice(sigPrefix.length)) : null;
    const sig = m ? fromBase64(m[2]!) : null;
    if (!m || !sig || sig.length < 5) throw new Error("checkpoint does not verify: malformed note");
    if (m[1] !== key.name || new DataView(sig.buffer).getUint32(0) !== key.hash) continue;
    if (!(await key.verify(utf8(text), sig.subarray(4)))) throw new Error("checkpoint does not verify: invalid signature for key " + key.name);
    mine++;
  }
  if (mine === 0) throw new Error(`checkpoint is not signed by the key ${key.name}+${key.hash.toString(16).padStart(8, "0")}: only by other keys`);
  const c = parseCheckpoint(text, note);
  if (c.origin !== key.name) throw new Error(`checkpoint of ${JSON.stringify(c.origin)} is signed by the key of ${JSON.stringify(key.name)}`);
  return c;
}

/** parseCheckpoint reads a checkpoint's body (origin, size, base64 root,
 * each on its own line, extension lines after them ignored). */
export function parseCheckpoint(text: string, note = text): Checkpoint {
  const lines = text.split("\n");
  if (lines.length < 4) throw new Error("checkpoint has fewer than three lines");
  const [origin, size, root] = lines as [string, string, string];
  if (origin === "") throw new Error("checkpoint has no origin");
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) throw new Error(`checkpoint size ${JSON.stringify(size)} is not a decimal number`);
  const h = fromBase64(root);
  if (!h || h.length !== 32) throw new Error(`checkpoint root ${JSON.stringify(root)} is not a base64 SHA-256 hash`);
  return { origin, size: Number(size), root: h, note };
}

/** sameTree reports whether two checkpoints describe the same tree. */
export function sameTree(a: Checkpoint, b: Checkpoint): boolean {
  return a.size === b.size && equal(a.root, b.root);
}

export function describe(c: Checkpoint): string {
  return `${c.origin} size ${c.size} root ${toBase64(c.root)}`;
}
