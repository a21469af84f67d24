// A todo's history at #/todos/{id}: every version with what changed, word
// by word, each verified in this browser (its chain hash from its own
// content, its leaf in the log, the checkpoint's signature, the log's
// consistency with what this browser saw before); compare, view as it
// was at a time, and restore. Loaded only when opened, with the verifier.
import { batch, useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api } from "../api";
import { html } from "../html";
import { fail, written } from "../store";
import {
  CheckpointMemory, bundleOf, consistencyOf, editable, openCheckpoint, parseKey, parseStrict, verifyHistory,
  type Inconsistency, type Json, type NoteKey, type ProofBundle, type Verdict,
} from "../verify/index.ts";
import { Exports } from "./records";
import { wordDiff } from "./worddiff";

type Rec = { [name: string]: Json } & { version: number; operation: string; actor: string; dateCreatedUtc: string; entity: { [name: string]: Json }; erased?: string[] };

/** pageSize is how many versions the timeline shows at a time. */
const pageSize = 50;
const alertKey = "todoaudit.log.alert";

/** text reads an answer's body as text: the verifier parses every byte
 * itself, strictly, rather than trusting a lenient parse. */
async function text(p: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<string> {
  const { data, error, response } = await p;
  if (typeof data !== "string") throw Object.assign(new Error(`${response.url}: ${response.status}`), { error, response });
  return data;
}

/** shown is a value as a person reads it. */
function shown(v: Json | undefined): string {
  if (v === undefined || v === null || v === "") return "(none)";
  if (Array.isArray(v)) return v.join(", ") || "(none)";
  return String(v);
}

/** noise are properties every version changes. */
const noise = new Set(["id", "type", "userId", "partitionKey", "createdAt", "version", "updatedAt", "lastOperation", "updatedBy"]);

function changed(before: Rec | undefined, after: Rec): string[] {
  return Object.keys({ ...before?.entity, ...after.entity }).filter(
    (k) => !noise.has(k) && JSON.stringify(before?.entity[k] ?? null) !== JSON.stringify(after.entity[k] ?? null));
}

function Diff({ before, after }: { before: string; after: string }) {
  return html`<span class="diff">${wordDiff(before, after).map((p) =>
    p.kind === "same" ? p.text
      : p.kind === "removed" ? html`<del><span class="visually-hidden">removed: </span>${p.text}</del>`
        : html`<ins><span class="visually-hidden">added: </span>${p.text}</ins>`)}</span>`;
}

/** Changes lists what after changed from before: titles and notes word by
 * word, other fields before and after, erased fields as erased. */
function Changes({ before, after, erasedOn }: { before: Rec | undefined; after: Rec; erasedOn: string | null }) {
  const names = changed(before, after);
  const erased = new Set(after.erased ?? []);
  if (names.length === 0 && erased.size === 0) return html`<p>No field changed.</p>`;
  return html`<dl class="changes">${names.filter((n) => !erased.has(n)).map((n) => html`
    <dt>${n}</dt>
    <dd>${n === "title" || n === "notes"
      ? html`<${Diff} before=${String(before?.entity[n] ?? "")} after=${String(after.entity[n] ?? "")} />`
      : html`<del><span class="visually-hidden">was: </span>${shown(before?.entity[n])}</del> → <ins><span class="visually-hidden">now: </span>${shown(after.entity[n])}</ins>`}</dd>`)}
    ${[...erased].map((n) => html`<dt>${n}</dt><dd class="erased">erased${erasedOn ? ` on ${new Date(erasedOn).toLocaleString()}` : ""} (the value and its salt were removed; its digest still verifies)</dd>`)}
  </dl>`;
}

/** History shows the history of the todo the route names, keyed by its id:
 * what one todo's history loaded, verified or compared is never shown
 * under another's. */
export default function History({ route }: { route: { rest: string } }) {
  const id = decodeURIComponent(route.rest);
  return html`<${TodoHistory} key=${id} id=${id} />`;
}

function TodoHistory({ id }: { id: string }) {
  const records = useSignal<Rec[]>([]);
  const complete = useSignal(true);
  const verdicts = useSignal<Map<number, Verdict>>(new Map());
  // unchecked is set when the check of the records shown could not run.
  const unchecked = useSignal(false);
  const shownCount = useSignal(pageSize);
  const key = useSignal<NoteKey | null>(null);
  const newKey = useSignal<NoteKey | null>(null);
  const alert = useSignal<Inconsistency | null>(JSON.parse(localStorage.getItem(alertKey) ?? "null") as Inconsistency | null);
  const compare = useSignal<[number, number] | null>(null);
  const asOf = useSignal<{ at: string; todo: Json } | null>(null);
  const note = useSignal("");
  // When the owner's content was erased: the erasure's own record says.
  const erasedOn = useSignal<string | null>(null);

  // The versions are read in the second form: one stored with its seed
  // shows it in place of its 17 commitments, which the verifier derives
  // from the seed as it checks the version's hash.
  const load = async (): Promise<void> => {
    const items: Rec[] = [];
    let continuation: string | undefined;
    do {
      const page = parseStrict(await text(api.GET("/api/todos/{id}/history", {
        params: { path: { id }, query: continuation ? { pageSize: 100, form: 2, continuation } : { pageSize: 100, form: 2 } }, parseAs: "text" }))) as { items: Rec[]; continuation?: string | null; complete?: boolean };
      items.push(...page.items);
      complete.value = page.complete !== false;
      continuation = page.continuation ?? undefined;
    } while (continuation);
    batch(() => {
      records.value = items;
      verdicts.value = new Map(); // a verdict is of the records it checked
    });
    if (items.some((r) => (r.erased ?? []).length > 0)) {
      const { data } = await api.GET("/api/me/erasure");
      erasedOn.value = data ? data.finishedAt ?? data.updatedAt ?? data.requestedAt ?? null : null;
    }
    try {
      unchecked.value = false;
      await verify(items);
    } catch (e) {
      unchecked.value = true;
      throw e;
    }
  };

  const verify = async (items: Rec[]): Promise<void> => {
    const memory = new CheckpointMemory(localStorage);
    const offered = await parseKey(await text(api.GET("/api/log/key", { parseAs: "text" })));
    const pinned = memory.pinnedKey(offered.name);
    if (pinned === null) memory.pin(offered);
    const trusted = pinned === null || pinned.trim() === offered.text ? offered : await parseKey(pinned);
    key.value = trusted;
    newKey.value = trusted === offered ? null : offered;
    const prove = async (from: number, to: number) =>
      consistencyOf(parseStrict(await text(api.GET("/api/log/consistency", { params: { query: { from, to } }, parseAs: "text" }))));
    const latest = await openCheckpoint(await text(api.GET("/api/log/checkpoint", { parseAs: "text" })), trusted);
    const seen = await memory.observe(latest, trusted, prove, true);
    if (!seen.ok) {
      localStorage.setItem(alertKey, JSON.stringify(seen.inconsistency));
      alert.value = seen.inconsistency;
    }
    const bundles: ProofBundle[] = [];
    const asked = new Map<ProofBundle, number>();
    await Promise.all(items.map(async (r) => {
      try {
        const b = bundleOf(parseStrict(await text(api.GET("/api/todos/{id}/history/proof", {
          params: { path: { id }, query: { version: r.version } }, parseAs: "text" }))));
        bundles.push(b);
        asked.set(b, r.version);
      } catch {
        // No proof yet: the version is not in a checkpoint (Pending).
      }
    }));
    verdicts.value = new Map((await verifyHistory(items, bundles, trusted, asked)).map((v) => [v.version, v]));
  };

  // mounted is false once the view is gone: a late error is not another view's.
  const mounted = useRef(true);
  const run = (f: () => Promise<void>) => () =>
    void f().catch((e: Error & { error?: unknown; response?: Response }) => {
      if (!mounted.current) return;
      if (e.response) fail(e.error ?? e, e.response);
      else fail({ type: "about:blank", title: "The history could not be verified", status: 0, detail: e.message });
    });
  useEffect(() => {
    run(load)();
    return () => {
      mounted.current = false;
    };
  }, []);

  const restore = (v: Rec) => run(async () => {
    if (!confirm(`Restore version ${v.version}? This adds a new version with the content of version ${v.version}. It erases nothing: every version stays in the history.`)) return;
    const { data, error, response } = await api.POST("/api/todos/{id}/rollback", { params: { path: { id } }, body: { version: v.version } });
    if (!data) return fail(error, response);
    written(data, response);
    note.value = `Version ${v.version} restored as a new version.`;
    await load();
  });
  const viewAsOf = (e: Event) => {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem("asof") as HTMLInputElement;
    if (!input.value) return;
    const at = new Date(input.value).toISOString();
    run(async () => {
      const { data, error, response } = await api.GET("/api/todos/{id}", { params: { path: { id }, query: { asOf: at } } });
      if (!data) return fail(error, response);
      asOf.value = { at, todo: data as unknown as Json };
    })();
  };
  const trustNewKey = () => {
    const k = newKey.value;
    if (!k || !confirm(`Trust the log's new key ${k.name} (fingerprint SHA-256 ${k.fingerprint}) in place of the one this browser pinned? Do so only if you know why the key changed.`)) return;
    new CheckpointMemory(localStorage).pin(k);
    run(load)();
  };
  const dismiss = () => {
    localStorage.removeItem(alertKey);
    alert.value = null;
  };

  const rs = records.value;
  const byVersion = new Map(rs.map((r) => [r.version, r]));
  const latest = rs[rs.length - 1];
  const newestFirst = [...rs].reverse().slice(0, shownCount.value);
  const cmp = compare.value;
  return html`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">History of ${String(latest?.entity["title"] ?? id)}</h2>
    <p><a href="#/">Back to my todos</a></p>
    ${alert.value && html`<div role="alert" class="inconsistency">
      <p><strong>The log is not consistent with what this browser saw before</strong> (a rollback or a fork): ${alert.value.reason}</p>
      <p><label>Checkpoint seen before<br /><textarea readonly rows="5" cols="60">${alert.value.seen}</textarea></label></p>
      <p><label>Checkpoint offered now<br /><textarea readonly rows="5" cols="60">${alert.value.offered}</textarea></label></p>
      <button onClick=${dismiss}>Dismiss</button>
    </div>`}
    <${Exports} path="/api/todos/{id}/history/export" filters=${{}} name=${`history-${id}`} id=${id} />
    ${key.value && html`<p class="key">Log key <code>${key.value.name}</code>, fingerprint SHA-256 <code class="fingerprint">${key.value.fingerprint}</code></p>`}
    ${newKey.value && html`<div class="key-change" role="group" aria-label="The log's key changed">
      <p>The log now signs with another key (fingerprint <code>${newKey.value.fingerprint}</code>) than the one this browser pinned; versions are checked with the pinned key until you trust the new one.</p>
      <button onClick=${trustNewKey}>Trust the new key</button></div>`}
    ${!complete.value && html`<p role="status">The history is not complete: some versions are missing (not audited yet, or lost).</p>`}
    ${note.value && html`<p role="status">${note.value}</p>`}
    <form class="asof" onSubmit=${viewAsOf}>
      <label for="asof">View as it was at</label> <input id="asof" name="asof" type="datetime-local" step="1" />
      <button type="submit">View</button>
    </form>
    ${asOf.value && html`<section class="asof-result" aria-label="As it was"><h3>As it was at ${asOf.value.at}</h3>
      <dl>${["title", "notes", "category", "tags", "dueDate", "isCompleted", "version"].map((k) => html`<dt>${k}</dt><dd>${shown((asOf.value!.todo as Record<string, Json>)[k])}</dd>`)}</dl></section>`}
    ${cmp && byVersion.get(cmp[0]) && byVersion.get(cmp[1]) && html`<section class="compare" aria-label="Comparison">
      <h3>Version ${cmp[0]} compared with version ${cmp[1]}</h3>
      <p><label>From version <select value=${cmp[0]} onChange=${(e: Event) => (compare.value = [Number((e.target as HTMLSelectElement).value), cmp[1]])}>
        ${rs.map((r) => html`<option value=${r.version}>${r.version}</option>`)}</select></label>
      <label> to version <select value=${cmp[1]} onChange=${(e: Event) => (compare.value = [cmp[0], Number((e.target as HTMLSelectElement).value)])}>
        ${rs.map((r) => html`<option value=${r.version}>${r.version}</option>`)}</select></label>
      <button onClick=${() => (compare.value = null)}>Close</button></p>
      <${Changes} before=${byVersion.get(cmp[0])} after=${byVersion.get(cmp[1])!} erasedOn=${erasedOn.value} />
    </section>`}
    <ul class="versions" aria-label="Versions">
      ${newestFirst.map((r) => {
        const v = verdicts.value.get(r.version);
        const status = v?.status ?? (unchecked.value ? "Unchecked" : "Checking");
        return html`<li key=${r.version} class=${"version " + status.toLowerCase()}>
          <h3>Version ${r.version} <span class="status">${status}</span></h3>
          ${v?.reason && html`<p class="reason">${v.reason}</p>`}
          <p>${r.operation} by ${r.actor} at <time datetime=${r.dateCreatedUtc}>${r.dateCreatedUtc}</time></p>
          <${Changes} before=${byVersion.get(r.version - 1)} after=${r} erasedOn=${erasedOn.value} />
          <button onClick=${() => (compare.value = [Math.max(1, r.version - 1), r.version])}>Compare</button>
          ${r !== latest && html` <button disabled=${(r.erased ?? []).some((n) => editable.includes(n))} onClick=${restore(r)}>Restore this version</button>`}
        </li>`;
      })}
    </ul>
    ${rs.length > shownCount.value && html`<button onClick=${() => (shownCount.value += pageSize)}>More versions (${rs.length - shownCount.value} older)</button>`}
  </section>`;
}
