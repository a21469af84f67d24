// Strict JSON: what the Go side decodes records with refuses a member
// given twice, which JSON.parse would let through (keeping the last), so
// that what is checked is what every reader sees.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [name: string]: Json;
}

const token = /[ \t\n\r]*(?:("(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|(true|false|null)|([{}[\]:,]))/y;

/** parseStrict parses one JSON value, refusing duplicate member names;
 * it throws an Error saying why the text is not strict JSON. */
export function parseStrict(text: string): Json {
  return parseStrictMembers(text, undefined);
}

/** parseStrictMembers is parseStrict that, when the value is an object,
 * gives members the text of each member's value, as sent: what a hash
 * over those bytes covers. */
export function parseStrictMembers(text: string, members: Map<string, string> | undefined): Json {
  let at = 0;
  // next reads one token: a string or number (kept as its text, for
  // JSON.parse), a literal, or punctuation.
  const next = (): { kind: "value" | "punct"; tok: string } => {
    token.lastIndex = at;
    const m = token.exec(text);
    if (!m) throw new Error(`not JSON at character ${at}`);
    at = token.lastIndex;
    return m[4] === undefined ? { kind: "value", tok: m[1] ?? m[2] ?? m[3]! } : { kind: "punct", tok: m[4] };
  };
  const space = /[ \t\n\r]*/y;
  const value = (top: boolean): Json => {
    const t = next();
    if (t.kind === "value") return JSON.parse(t.tok) as Json;
    if (t.tok === "[") {
      const out: Json[] = [];
      const save = at;
      if (next().tok === "]") return out;
      at = save;
      for (;;) {
        out.push(value(false));
        const sep = next().tok;
        if (sep === "]") return out;
        if (sep !== ",") throw new Error(`expected , or ] at character ${at}`);
      }
    }
    if (t.tok !== "{") throw new Error(`unexpected ${t.tok} at character ${at}`);
    const obj: JsonObject = {};
    for (let first = true; ; first = false) {
      const n = next();
      if (first && n.tok === "}") return obj;
      if (n.kind !== "value" || !n.tok.startsWith('"')) throw new Error(`expected a member name at character ${at}`);
      const name = JSON.parse(n.tok) as string;
      if (Object.hasOwn(obj, name)) throw new Error(`member ${JSON.stringify(name)} is given twice`);
      if (next().tok !== ":") throw new Error(`expected : at character ${at}`);
      space.lastIndex = at;
      const start = at + space.exec(text)![0].length;
      Object.defineProperty(obj, name, { value: value(false), enumerable: true, writable: true, configurable: true });
      if (top) members?.set(name, text.slice(start, at));
      const sep = next().tok;
      if (sep === "}") return obj;
      if (sep !== ",") throw new Error(`expected , or } at character ${at}`);
    }
  };
  const v = value(true);
  if (!/^[ \t\n\r]*$/.test(text.slice(at))) throw new Error(`text after the JSON value at character ${at}`);
  return v;
}

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** onlyMembers throws unless every member of o is one of names, spelled
 * exactly (member names are case-sensitive). */
export function onlyMembers(o: JsonObject, names: readonly string[], what: string): void {
  for (const name of Object.keys(o)) {
    if (!names.includes(name)) throw new Error(`${what} has member ${JSON.stringify(name)}, which it never has (names are case-sensitive)`);
  }
}
