// The caller's own activity at #/activity: every change to their todos,
// newest first, filtered by operation, category and time, page by page,
// and exported with the same filters.
import { api } from "../api";
import { html } from "../html";
import { RecordsView } from "./records";

export default function Activity() {
  return html`<${RecordsView} title="My activity" caption="Activity" back=${true}
    exportPath="/api/activity/export" exportName="my-activity"
    list=${(q: Record<string, string>, continuation: string | undefined) => api.GET("/api/activity", { params: { query: { ...q, pageSize: 50, form: 2, continuation } } })} />`;
}
