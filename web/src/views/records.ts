// What the activity and audit views share: the filters (a time range, an
// operation, a category), the table of audit records, paging with "More",
// and export downloads with the filters applied. Loaded with those views.
import { useSignal, type Signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api, type Problem } from "../api";
import { html } from "../html";
import { fail } from "../store";
import type { components } from "../../../client/typescript/index";

export type AuditRecord = components["schemas"]["AuditRecord"];
export type Filters = Record<string, string>;

/** The operations a filter can ask for, as the API names them. */
export const operations = ["create", "update", "delete", "rollback", "move", "erase"] as const;

/** query keeps the filters that are set, times as RFC 3339 in UTC. */
export function query(f: Filters): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [name, value] of Object.entries(f)) {
    if (!value) continue;
    q[name] = name === "since" || name === "until" ? new Date(value).toISOString() : value;
  }
  return q;
}

/** when is a time as a person reads it, in their zone. */
export function when(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "";
}

/** A page of results: load(false) starts over, load(true) appends the next page. */
export function usePages<T>(fetchPage: (continuation: string | undefined) => Promise<{ items: T[]; continuation?: string | null } | null>) {
  const items = useSignal<T[]>([]);
  const next = useSignal<string | null>(null);
  const loading = useSignal(false);
  const loaded = useSignal(false);
  const load = async (more: boolean) => {
    loading.value = true;
    try {
      const page = await fetchPage(more ? next.value ?? undefined : undefined);
      if (!page) return;
      items.value = more ? [...items.value, ...page.items] : page.items;
      next.value = page.continuation ?? null;
      loaded.value = true;
    } catch (e) {
      fail(e);
    } finally {
      loading.value = false;
    }
  };
  return { items, next, loading, loaded, load };
}

/** The "More" button and the paging line, shown while the server has more. */
export function More({ pages, what }: { pages: ReturnType<typeof usePages<unknown>>; what: string }) {
  const n = pages.items.value.length;
  return html`<p class="paging" aria-live="polite">
    ${pages.loaded.value && (n === 0 ? `No ${what}.` : `${n} ${what} loaded${pages.next.value !== null ? "; the server has more." : "."}`)}
    ${pages.next.value !== null && html` <button type="button" class="more" disabled=${pages.loading.value} onClick=${() => void pages.load(true)}>More</button>`}
  </p>`;
}

/** A text field bound to a filter. */
export function Field({ filters, name, label, type = "text" }: { filters: Signal<Filters>; name: string; label: string; type?: string }) {
  return html`<label>${label} <input type=${type} name=${name} value=${filters.value[name] ?? ""}
    onInput=${(e: Event) => (filters.value = { ...filters.value, [name]: (e.currentTarget as HTMLInputElement).value })} /></label>`;
}

/** The filters every record view has: time range, operation, category. */
export function CommonFilters({ filters }: { filters: Signal<Filters> }) {
  const set = (name: string) => (e: Event) => (filters.value = { ...filters.value, [name]: (e.currentTarget as HTMLSelectElement).value });
  return html`
    <label>Operation <select name="operation" value=${filters.value.operation ?? ""} onChange=${set("operation")}>
      <option value="">Any operation</option>
      ${operations.map((o) => html`<option value=${o}>${o}</option>`)}
    </select></label>
    <${Field} filters=${filters} name="category" label="Category" />
    <${Field} filters=${filters} name="since" label="From" type="datetime-local" />
    <${Field} filters=${filters} name="until" label="Until" type="datetime-local" />`;
}

/** changed names the fields a record's snapshot holds, shortly. */
function summary(r: AuditRecord): string {
  const e = r.entity as Record<string, unknown>;
  if (r.entityType === "erasure") return `erasure of ${String(e.userId ?? "")}: ${String(e.state ?? "")}`;
  return String(e.title ?? "");
}

/** The table of audit records, each linked to its todo's history. */
export function RecordTable({ items, caption }: { items: AuditRecord[]; caption: string }) {
  return html`<div class="scroll"><table>
    <caption>${caption}</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col">Actor</th><th scope="col">Todo</th><th scope="col">Version</th></tr></thead>
    <tbody>${items.map((r) => html`<tr key=${r.id}>
      <td>${when(r.dateCreatedUtc)}</td><td>${r.operation}</td><td>${r.actor}</td>
      <td>${r.entityType === "todo" ? html`<a href=${`#/todos/${encodeURIComponent(r.entityId)}`}>${summary(r) || r.entityId}</a>` : summary(r)}</td>
      <td>${r.version}</td></tr>`)}</tbody>
  </table></div>`;
}

type ExportPath = "/api/activity/export" | "/api/manage/audit/export" | "/api/todos/{id}/history/export";

/** download fetches an export with the caller's credentials (dev mode's
 * header cannot ride on a link) and saves it under name. */
export async function download(path: ExportPath, q: Record<string, string>, csv: boolean, name: string, id = ""): Promise<void> {
  try {
    const { data, error, response } = await (api.GET as (p: string, o: object) => Promise<{ data?: Blob; error?: Problem; response: Response }>)(path, {
      params: { query: q, path: { id }, header: { Accept: csv ? "text/csv" : "application/x-ndjson" } },
      parseAs: "blob",
    });
    if (!data) return fail(error, response);
    const url = URL.createObjectURL(data);
    const a = document.createElement("a");
    a.href = url;
    a.download = `${name}.${csv ? "csv" : "ndjson"}`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (e) {
    fail(e);
  }
}

/** The two export buttons, NDJSON and CSV, of what the filters select. */
export function Exports({ path, filters, name, id }: { path: ExportPath; filters: Filters; name: string; id?: string }) {
  return html`<p class="exports">
    <button type="button" onClick=${() => void download(path, query(filters), false, name, id)}>Export NDJSON</button>
    <button type="button" onClick=${() => void download(path, query(filters), true, name, id)}>Export CSV</button>
  </p>`;
}

/** A view of audit records: filters (the common ones after extra), the
 * exports of what they select, the table and "More". list reads a page. */
export function RecordsView({ title, caption, list, exportPath, exportName, extra, back }: {
  title: string; caption: string; exportPath: ExportPath; exportName: string; back: boolean;
  list: (q: Record<string, string>, continuation: string | undefined) => Promise<{ data?: { items: AuditRecord[]; continuation?: string | null }; error?: unknown; response: Response }>;
  extra?: (filters: Signal<Filters>) => unknown;
}) {
  const filters = useSignal<Filters>({});
  const pages = usePages<AuditRecord>(async (continuation) => {
    const { data, error, response } = await list(query(filters.value), continuation);
    if (!data) return fail(error, response), null;
    return data;
  });
  useLoad(() => pages.load(false));
  return html`<section class="records" aria-labelledby="records-title">
    <h2 id="records-title">${title}</h2>
    ${back && html`<p><a href="#/">Back to my todos</a></p>`}
    <form class="filters" aria-label="Filters" onSubmit=${(e: Event) => { e.preventDefault(); void pages.load(false); }}>
      ${extra?.(filters)}
      <${CommonFilters} filters=${filters} />
      <button type="submit">Apply</button>
    </form>
    <${Exports} path=${exportPath} filters=${filters.value} name=${exportName} />
    <${RecordTable} items=${pages.items.value} caption=${caption} />
    <${More} pages=${pages} what="records" />
  </section>`;
}

/** useLoad runs load once when the view is shown. */
export function useLoad(load: () => unknown): void {
  useEffect(() => void load(), []);
}
