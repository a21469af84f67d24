// The log's state at #/manage/log: the newest checkpoint (origin, tree
// size, when its newest entry was written: the time its entry names, for
// a leaf of the encoding that names one, else when the checkpoint holding
// it was published), the handler's health with the audit's lag, and on
// demand
// the walk of the whole log against the store, which counts the versions
// stored but not logged yet (the integrator's lag) and every problem,
// among them a store behind its anchored checkpoint.
import { useSignal } from "@preact/signals";
import type { components } from "../../../../client/typescript/index";
import { api, getRaw } from "../../api";
import { html } from "../../html";
import { fail } from "../../store";
import { tilePath } from "../../verify/index.ts";
import { useLoad, when } from "../records";

type Health = components["schemas"]["Health"];
type Walk = components["schemas"]["LogVerification"];
type Head = { origin: string; size: number; root: string; newest: string };

/** newestEntryTime reads the time of the log's last entry from its entry
 * bundle: "" when the entry names none (the leaves written now hold the
 * version's hash alone). */
async function newestEntryTime(size: number): Promise<string> {
  if (size === 0) return "";
  const last = size - 1;
  const w = (last % 256) + 1;
  const path = tilePath(0, Math.floor(last / 256), w).replace(/^tile\/0\//, "tile/entries/");
  const res = await getRaw(`/api/log/${path}`);
  if (!res.ok) return "";
  const b = new Uint8Array(await res.arrayBuffer());
  let at = 0;
  let entry = new Uint8Array();
  for (let i = 0; i < w && at + 2 <= b.length; i++) {
    const n = (b[at]! << 8) | b[at + 1]!;
    entry = b.subarray(at + 2, at + 2 + n);
    at += 2 + n;
  }
  const line = new TextDecoder().decode(entry).split("\n").find((l) => l.startsWith("at "));
  return line ? line.slice(3).replace(/(\.\d{3})\d*/, "$1") : "";
}

/** age is how long ago a time was, in words. */
function age(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

export default function Log() {
  const head = useSignal<Head | null>(null);
  const health = useSignal<Health | null>(null);
  const walk = useSignal<Walk | null>(null);
  const walking = useSignal(false);
  const refresh = async () => {
    try {
      const h = await api.GET("/api/health");
      health.value = (h.data ?? h.error) as Health | null;
      const res = await fetch("/api/log/checkpoint");
      if (!res.ok) return fail(await res.json().catch(() => null), res);
      const [origin = "", size = "0", root = ""] = (await res.text()).split("\n");
      const published = res.headers.get("Last-Modified");
      const newest = (await newestEntryTime(Number(size))) || (published ? new Date(published).toISOString() : "");
      head.value = { origin, size: Number(size), root, newest };
    } catch (e) {
      fail(e);
    }
  };
  const check = async () => {
    walking.value = true;
    try {
      const { data, error, response } = await api.GET("/api/manage/log/verify");
      if (!data) return fail(error, response);
      walk.value = data;
    } finally {
      walking.value = false;
    }
  };
  useLoad(refresh);
  const h = health.value;
  const c = head.value;
  const w = walk.value;
  return html`<section class="records" aria-labelledby="log-title">
    <h2 id="log-title">Log and health</h2>
    <button type="button" onClick=${() => void refresh()}>Refresh</button>
    <dl class="facts" aria-label="Log state">
      ${h && html`<dt>Health</dt><dd class=${h.status === "ok" ? "ok" : "bad"}>${h.status}${h.store ? ` (${h.store})` : ""}</dd>
        ${h.audit && html`<dt>Audit</dt><dd>${h.audit.state}, ${h.audit.lagSeconds === null ? "lag not known here" : `${h.audit.lagSeconds} s behind the todos`}</dd>`}`}
      ${c && html`<dt>Log</dt><dd>${c.origin}</dd>
        <dt>Tree size</dt><dd>${c.size}</dd>
        <dt>Newest entry</dt><dd>${c.newest ? `${when(c.newest)} (${age(c.newest)})` : "none"}</dd>
        <dt>Root</dt><dd class="digest">${c.root}</dd>`}
    </dl>
    <p>The walk reads every entry of the log and every stored version: slow on a large log.</p>
    <button type="button" disabled=${walking.value} onClick=${() => void check()}>Walk the whole log</button>
    ${w && html`<div role="status"><dl class="facts" aria-label="Log walk">
      <dt>Verdict</dt><dd class=${w.verified ? "ok" : "bad"}>${w.verified ? "the log and the store agree" : "problems found"}</dd>
      <dt>Entries walked</dt><dd>${w.entries}</dd>
      <dt>Not logged yet (integrator lag)</dt><dd>${w.pending} versions</dd>
      <dt>Anchoring</dt><dd>${w.problems.some((p) => p.kind === "storeBehindAnchor") ? "the store is behind its anchored checkpoint" : "the store extends its anchored checkpoint"}</dd>
      ${w.problems.map((p) => html`<dt>${p.kind}</dt><dd>${p.entityId ? `${p.entityId} version ${p.version}` : p.index !== undefined ? `the log's entry ${p.index}` : "the whole log"}</dd>`)}
    </dl></div>`}
  </section>`;
}
