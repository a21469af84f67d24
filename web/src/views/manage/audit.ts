// The audit at #/manage/audit: every user's audit records by actor, owner
// or todo within a time range, page by page, and exported with the same
// filters.
import type { Signal } from "@preact/signals";
import { api } from "../../api";
import { html } from "../../html";
import { Field, RecordsView, type Filters } from "../records";

export default function Audit() {
  return html`<${RecordsView} title="Audit" caption="Audit records" back=${false}
    exportPath="/api/manage/audit/export" exportName="audit"
    list=${(q: Record<string, string>, continuation: string | undefined) => api.GET("/api/manage/audit", { params: { query: { ...q, pageSize: 50, form: 2, continuation } } })}
    extra=${(filters: Signal<Filters>) => html`
      <${Field} filters=${filters} name="actor" label="Actor" />
      <${Field} filters=${filters} name="owner" label="Owner" />
      <${Field} filters=${filters} name="entityId" label="Todo id" />`} />`;
}
