// An erasure's progress, shown the same way to the user who asked to be
// forgotten and to the admin who asked for it, and followed until done.
import type { Signal } from "@preact/signals";
import type { components } from "../../../../client/typescript/index";
import { html } from "../../html";
import { fail } from "../../store";
import { when } from "../records";

export type Erasure = components["schemas"]["Erasure"];

/** How often a running erasure is asked for again, and for how long at most. */
const pollMillis = 1000;
const pollDeadlineMillis = 10 * 60 * 1000;

/** follow reads the erasure with get into shown until it is done, the
 * deadline passes, or the returned function is called. */
export function follow(shown: Signal<Erasure | null>, get: () => Promise<Erasure | null>): () => void {
  let stopped = false;
  const end = Date.now() + pollDeadlineMillis;
  void (async () => {
    while (!stopped) {
      try {
        shown.value = await get();
      } catch (e) {
        return fail(e);
      }
      if (!shown.value || shown.value.state === "done" || Date.now() > end) return;
      await new Promise((r) => setTimeout(r, pollMillis));
    }
  })();
  return () => (stopped = true);
}

const counts = (c: Erasure["erased"]) => Object.entries(c as Record<string, number>).map(([k, n]) => `${k} ${n}`).join(", ") || "none";

/** The erasure's state, phase and counts, announced as they change. */
export function ErasureStatus({ erasure: e }: { erasure: Erasure }) {
  return html`<div class="erasure" role="status" aria-label=${`Erasure of ${e.userId}`}>
    <p><strong>Erasure of ${e.userId}: ${e.state === "done" ? "done" : `running (${e.phase})`}</strong>
      ${e.heldBy && html` — paused by the legal hold ${e.heldBy}`}</p>
    <dl>
      <dt>Requested</dt><dd>${when(e.requestedAt)} by ${e.requestedBy} (run ${e.run}): ${e.reason}</dd>
      <dt>Erased</dt><dd>${counts(e.erased)}</dd>
      <dt>Left as they are (first chain encoding)</dt><dd>${counts(e.firstEncoding)}</dd>
      ${e.finishedAt && html`<dt>Finished</dt><dd>${when(e.finishedAt)}</dd>`}
    </dl>
  </div>`;
}
