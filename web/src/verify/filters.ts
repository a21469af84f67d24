// What the records of an export were, compared with the filters its
// manifest names (which come after them), as the auditor's command line
// compares them: each record must be one the filters select, and a filter
// this code does not know fails, since what it selects cannot be checked.

import { isObject, type Json } from "./json.ts";
import { timeKey } from "./time.ts";

const valued = ["id", "entityId", "operation", "actor", "owner", "category"];

/** Seen keeps the distinct values of each filtered property and the range
 * of the records' times (as time keys, which sort as the times do). */
export class Seen {
  private values = new Map<string, Set<string>>();
  private oldest: string | null = null;
  private newest: string | null = null;

  /** add notes one record: owner and category are its entity's. */
  add(r: { entityId: string; operation: string; actor: string; dateCreatedUtc: string }, owner: string, category: string): void {
    const of: Record<string, string> = { id: r.entityId, entityId: r.entityId, operation: r.operation, actor: r.actor, owner, category };
    for (const name of valued) {
      const vs = this.values.get(name) ?? new Set<string>();
      this.values.set(name, vs.add(of[name]!));
    }
    const at = timeKey(r.dateCreatedUtc);
    if (this.oldest === null || at < this.oldest) this.oldest = at;
    if (this.newest === null || at > this.newest) this.newest = at;
  }

  /** check throws saying which of the manifest's filters a record is not of. */
  check(filters: Json | undefined): void {
    if (filters === undefined || filters === null) return;
    if (!isObject(filters) || Object.values(filters).some((v) => typeof v !== "string")) {
      throw new Error("the manifest's filters are not names and values");
    }
    for (const name of Object.keys(filters).sort()) {
      const want = filters[name] as string;
      if (name === "since" || name === "until") {
        let t: string;
        try {
          t = timeKey(want);
        } catch {
          throw new Error(`the manifest's filter ${name}=${JSON.stringify(want)} is not a time`);
        }
        if (this.oldest !== null && ((name === "since" && this.oldest < t) || (name === "until" && this.newest! > t))) {
          throw new Error(`a record is not of the manifest's filter ${name}=${want}`);
        }
      } else if (valued.includes(name)) {
        for (const v of this.values.get(name) ?? []) {
          if (v !== want && !(name === "category" && v === "")) {
            throw new Error(`a record has ${name} ${JSON.stringify(v)}, not the manifest's filter ${name}=${JSON.stringify(want)}`);
          }
        }
      } else {
        throw new Error(`the manifest names a filter ${JSON.stringify(name)} whose records cannot be checked`);
      }
    }
  }
}

/** ownerOf is the owner part of a todo's entity key, <type>/<owner>/<id>. */
export function ownerOf(r: { entityKey: string; entityType: string; entityId: string }): string {
  let rest = r.entityKey;
  if (rest.startsWith(r.entityType + "/")) rest = rest.slice(r.entityType.length + 1);
  if (rest.endsWith("/" + r.entityId)) rest = rest.slice(0, rest.length - r.entityId.length - 1);
  return rest;
}
