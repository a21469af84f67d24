// The caller's own activity at #/activity: every change to their todos,
// newest first, filtered by operation, category and time, page by page,
// and exported with the same filters.
import { useSignal } from "@preact/signals";
import { api } from "../api";
import { html } from "../html";
import { fail } from "../store";
import { CommonFilters, Exports, More, RecordTable, query, useLoad, usePages, type AuditRecord, type Filters } from "./records";

export default function Activity() {
  const filters = useSignal<Filters>({});
  const pages = usePages<AuditRecord>(async (continuation) => {
    const { data, error, response } = await api.GET("/api/activity", { params: { query: { ...query(filters.value), pageSize: 50, continuation } } });
    if (!data) return fail(error, response), null;
    return data;
  });
  useLoad(() => pages.load(false));
  return html`<section class="records" aria-labelledby="activity-title">
    <h2 id="activity-title">My activity</h2>
    <p><a href="#/">Back to my todos</a></p>
    <form class="filters" aria-label="Filters" onSubmit=${(e: Event) => { e.preventDefault(); void pages.load(false); }}>
      <${CommonFilters} filters=${filters} />
      <button type="submit">Apply</button>
    </form>
    <${Exports} path="/api/activity/export" filters=${filters.value} name="my-activity" />
    <${RecordTable} items=${pages.items.value} caption="Activity" />
    <${More} pages=${pages} what="records" />
  </section>`;
}
