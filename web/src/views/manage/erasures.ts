// Erasures at #/manage/erasures: an admin asks to erase a user's personal
// content, after a confirmation naming the user and what goes, and sees
// its progress until it is done. An erasure id reached later is opened
// with the same form's "Show" field.
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "../../api";
import { html } from "../../html";
import { fail } from "../../store";
import { ErasureStatus, follow, type Erasure } from "./erasure";

export default function Erasures() {
  const erasure = useSignal<Erasure | null>(null);
  const stop = useSignal<() => void>(() => {});
  useEffect(() => () => stop.value(), []);
  const watch = (id: string) => {
    stop.value();
    stop.value = follow(erasure, async () => {
      const { data, error, response } = await api.GET("/api/manage/erasures/{id}", { params: { path: { id } } });
      if (!data) throw Object.assign(new Error(error?.title ?? String(response.status)), error);
      return data;
    });
  };
  const request = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const userId = String(f.get("userId") ?? "").trim();
    const reason = String(f.get("reason") ?? "").trim();
    const ok = confirm(`Erase the personal content of user ${userId}? This erases, for good, the titles, notes, tags and `
      + `categories of all of ${userId}'s todos, of every version in their history and of their dead letters. `
      + "It cannot be undone; a legal hold on the user pauses it.");
    if (!ok) return;
    const { data, error, response } = await api.POST("/api/manage/erasures", { body: { userId, reason } });
    if (!data) return fail(error, response);
    erasure.value = data;
    watch(data.id);
  };
  return html`<section class="records" aria-labelledby="erasures-title">
    <h2 id="erasures-title">Erasures</h2>
    <form class="filters" aria-label="Request an erasure" onSubmit=${request}>
      <label>User id <input name="userId" required autocomplete="off" /></label>
      <label>Reason <input name="reason" required autocomplete="off" /></label>
      <button type="submit" class="danger">Erase this user's data</button>
    </form>
    <form class="filters" aria-label="Follow an erasure" onSubmit=${(e: Event) => {
      e.preventDefault();
      watch(String(new FormData(e.currentTarget as HTMLFormElement).get("id") ?? "").trim());
    }}>
      <label>Erasure id <input name="id" required autocomplete="off" pattern="erasure-[0-9a-f]{32}" /></label>
      <button type="submit">Show</button>
    </form>
    ${erasure.value && html`<${ErasureStatus} erasure=${erasure.value} />`}
  </section>`;
}
