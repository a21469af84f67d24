// What this browser has seen of each log: the newest checkpoint it
// accepted and the key it pinned, per log origin, in a key-value store
// (localStorage in the page; any object with getItem and setItem in
// tests). A checkpoint that does not extend what was seen is a rollback or
// a fork: it is reported with both checkpoints and never replaces the one
// seen.

import { openCheckpoint, type Checkpoint, type NoteKey } from "./note.ts";
import { checkExtends, type ConsistencyProof } from "./proof.ts";

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** ProveConsistency fetches the consistency proof between two tree sizes
 * (GET /api/log/consistency?from=&to=). */
export type ProveConsistency = (from: number, to: number) => Promise<ConsistencyProof>;

/** Inconsistency is a log's answer that contradicts what was seen. */
export interface Inconsistency {
  seen: string;
  offered: string;
  reason: string;
}

export type Observation = { ok: true; newest: Checkpoint } | { ok: false; inconsistency: Inconsistency };

export class CheckpointMemory {
  constructor(private store: KeyValueStore, private prefix = "todoaudit.log.") {}

  /** newest is the note of the newest checkpoint seen of origin. */
  newest(origin: string): string | null {
    return this.store.getItem(this.prefix + "checkpoint." + origin);
  }

  /** pinnedKey is the verifier key pinned for origin, if any. */
  pinnedKey(origin: string): string | null {
    return this.store.getItem(this.prefix + "key." + origin);
  }

  /** pin pins key for its origin: call it for a key never seen, or for a
   * different one only with the user's explicit consent. */
  pin(key: NoteKey): void {
    this.store.setItem(this.prefix + "key." + key.name, key.text);
  }

  /** observe checks c (already verified with key) against the newest
   * checkpoint seen of its log, proving consistency between them, and
   * remembers c when it is newer. An older checkpoint (one a proof bundle
   * or an export carries) is accepted when the seen one extends it, but
   * not as the log's latest: a log whose latest is smaller than a tree it
   * signed before was rolled back. */
  async observe(c: Checkpoint, key: NoteKey, prove: ProveConsistency, latest: boolean): Promise<Observation> {
    const seenNote = this.newest(c.origin);
    if (seenNote === null) {
      this.store.setItem(this.prefix + "checkpoint." + c.origin, c.note);
      return { ok: true, newest: c };
    }
    try {
      const seen = await openCheckpoint(seenNote, key);
      if (latest && c.size < seen.size) {
        throw new Error(`its latest checkpoint (size ${c.size}) is older than one it signed before (size ${seen.size}): it was rolled back`);
      }
      const [older, newer] = c.size < seen.size ? [c, seen] : [seen, c];
      await checkExtends(older, newer, older.size === newer.size || older.size === 0 ? null : await prove(older.size, newer.size));
      if (newer === c) this.store.setItem(this.prefix + "checkpoint." + c.origin, c.note);
      return { ok: true, newest: newer };
    } catch (err) {
      const reason = `the log is not consistent with what this browser saw before: ${(err as Error).message}`;
      return { ok: false, inconsistency: { seen: seenNote, offered: c.note, reason } };
    }
  }
}
