// Legal holds at #/manage/holds: the holds in force, a form that places
// one on a user or a todo, and release with a reason.
import { useSignal } from "@preact/signals";
import type { components } from "../../../../client/typescript/index";
import { api } from "../../api";
import { html } from "../../html";
import { fail } from "../../store";
import { useLoad, when } from "../records";

type Hold = components["schemas"]["Hold"];

export default function Holds() {
  const holds = useSignal<Hold[] | null>(null);
  const load = async () => {
    const { data, error, response } = await api.GET("/api/manage/holds");
    if (!data) return fail(error, response);
    holds.value = data.items;
  };
  useLoad(load);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const target = String(f.get("target") ?? "").trim();
    const body = { reason: String(f.get("reason") ?? "").trim(), ...(f.get("kind") === "todo" ? { todoId: target } : { userId: target }) };
    const { data, error, response } = await api.POST("/api/manage/holds", { body });
    if (!data) return fail(error, response);
    form.reset();
    await load();
  };
  const release = async (h: Hold) => {
    const reason = prompt(`Release the hold on ${h.userId ? `user ${h.userId}` : `todo ${h.todoId}`}? Give the reason for the release.`);
    if (!reason) return;
    const { error, response } = await api.DELETE("/api/manage/holds/{id}", { params: { path: { id: h.id }, query: { reason } } });
    if (!response.ok) return fail(error, response);
    await load();
  };
  return html`<section class="records" aria-labelledby="holds-title">
    <h2 id="holds-title">Legal holds</h2>
    <form class="filters" aria-label="New legal hold" onSubmit=${create}>
      <label>Hold <select name="kind"><option value="user">a user's todos</option><option value="todo">one todo</option></select></label>
      <label>User or todo id <input name="target" required autocomplete="off" /></label>
      <label>Reason <input name="reason" required autocomplete="off" /></label>
      <button type="submit">Place hold</button>
    </form>
    ${holds.value && (holds.value.length === 0 ? html`<p>No legal hold is in force.</p>` : html`<ul class="holds" aria-label="Holds">
      ${holds.value.map((h) => html`<li key=${h.id}>
        <strong>${h.userId ? `User ${h.userId}` : `Todo ${h.todoId}`}</strong>: ${h.reason}
        <span class="muted"> — by ${h.createdBy}, ${when(h.createdAt)}</span>
        <button type="button" onClick=${() => void release(h)} aria-label=${`Release the hold on ${h.userId ?? h.todoId}`}>Release</button>
      </li>`)}
    </ul>`)}
  </section>`;
}
