// The admin entry: every user's todos (GET /api/manage/todos), page by
// page. Loaded only when an admin opens #/admin.
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api, type Todo } from "../api";
import { html } from "../html";
import { fail } from "../store";

export default function Admin() {
  const items = useSignal<Todo[]>([]);
  const next = useSignal<string | null>(null);
  const loading = useSignal(false);
  const load = async (more: boolean) => {
    loading.value = true;
    try {
      const query = more && next.value ? { pageSize: 100, continuation: next.value } : { pageSize: 100 };
      const { data, error, response } = await api.GET("/api/manage/todos", { params: { query } });
      if (!data) return fail(error, response);
      items.value = more ? [...items.value, ...data.items] : data.items;
      next.value = data.continuation ?? null;
    } catch (e) {
      fail(e);
    } finally {
      loading.value = false;
    }
  };
  useEffect(() => void load(false), []);
  return html`<section class="admin" aria-labelledby="admin-title">
    <h2 id="admin-title">Every user's todos</h2>
    <p><a href="#/">Back to my todos</a></p>
    <table>
      <thead><tr><th scope="col">User</th><th scope="col">Category</th><th scope="col">Title</th><th scope="col">Done</th></tr></thead>
      <tbody>${items.value.map((t) => html`<tr key=${t.id}><td>${t.userId}</td><td>${t.category}</td><td>${t.title}</td><td>${t.isCompleted ? "yes" : "no"}</td></tr>`)}</tbody>
    </table>
    ${next.value !== null && html`<button class="more" disabled=${loading.value} onClick=${() => void load(true)}>More</button>`}
  </section>`;
}
