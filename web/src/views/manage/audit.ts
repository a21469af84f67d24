// The audit at #/manage/audit: every user's audit records by actor, owner
// or todo within a time range, page by page, and exported with the same
// filters.
import { useSignal } from "@preact/signals";
import { api } from "../../api";
import { html } from "../../html";
import { fail } from "../../store";
import { CommonFilters, Exports, Field, More, RecordTable, query, useLoad, usePages, type AuditRecord, type Filters } from "../records";

export default function Audit() {
  const filters = useSignal<Filters>({});
  const pages = usePages<AuditRecord>(async (continuation) => {
    const { data, error, response } = await api.GET("/api/manage/audit", { params: { query: { ...query(filters.value), pageSize: 50, continuation } } });
    if (!data) return fail(error, response), null;
    return data;
  });
  useLoad(() => pages.load(false));
  return html`<section class="records" aria-labelledby="audit-title">
    <h2 id="audit-title">Audit</h2>
    <form class="filters" aria-label="Filters" onSubmit=${(e: Event) => { e.preventDefault(); void pages.load(false); }}>
      <${Field} filters=${filters} name="actor" label="Actor" />
      <${Field} filters=${filters} name="owner" label="Owner" />
      <${Field} filters=${filters} name="entityId" label="Todo id" />
      <${CommonFilters} filters=${filters} />
      <button type="submit">Apply</button>
    </form>
    <${Exports} path="/api/manage/audit/export" filters=${filters.value} name="audit" />
    <${RecordTable} items=${pages.items.value} caption="Audit records" />
    <${More} pages=${pages} what="records" />
  </section>`;
}
