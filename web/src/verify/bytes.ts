// Bytes, hex, base64 and SHA-256: the few primitives every check needs,
// on Web Crypto alone (browsers, and Node as globalThis.crypto).

export const subtle = globalThis.crypto.subtle;

const encoder = new TextEncoder();

/** utf8 is the UTF-8 bytes of s. */
export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** concat joins byte strings. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** hex is the lowercase hex of b. */
export function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** unhex decodes hex digits of either case (as Go's hex.DecodeString), or
 * gives null. */
export function unhex(s: string): Uint8Array | null {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) return null;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** isLowerHex reports whether s is n bytes in lowercase hex. */
export function isLowerHex(s: string, n: number): boolean {
  return s.length === 2 * n && /^[0-9a-f]*$/.test(s);
}

/** fromBase64 decodes standard padded base64, refusing any other spelling
 * (as Go's StdEncoding.Strict()), or gives null. */
export function fromBase64(s: string): Uint8Array | null {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  let bin: string;
  try {
    bin = atob(s);
  } catch {
    return null;
  }
  const out = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return toBase64(out) === s ? out : null;
}

export function toBase64(b: Uint8Array): string {
  let bin = "";
  for (const x of b) bin += String.fromCharCode(x);
  return btoa(bin);
}

export async function sha256(b: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle.digest("SHA-256", b as BufferSource));
}
