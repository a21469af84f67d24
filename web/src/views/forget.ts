// "Forget my data" at #/forget, for every user: erases the caller's
// personal content from their todos and their audit history, after a
// warning that says what goes and that it cannot be undone, then shows
// the erasure's progress until it is done.
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "../api";
import { identity } from "../auth";
import { html } from "../html";
import { fail } from "../store";
import { ErasureStatus, follow, type Erasure } from "./manage/erasure";

export default function Forget() {
  const erasure = useSignal<Erasure | null>(null);
  const stop = useSignal<() => void>(() => {});
  const poll = () => {
    stop.value();
    stop.value = follow(erasure, async () => {
      const { data, response } = await api.GET("/api/me/erasure");
      return data ?? (response.status === 404 ? null : Promise.reject(new Error(`${response.status}`)));
    });
  };
  useEffect(() => (poll(), () => stop.value()), []);
  const forget = async () => {
    const ok = confirm(`Forget the data of ${identity.value.user}? This erases the titles, notes, tags and every other `
      + "personal field of all your todos and of every version in their history, for good: it cannot be undone. "
      + "The history keeps that a version existed, not what it said.");
    if (!ok) return;
    const { data, error, response } = await api.DELETE("/api/me/data");
    if (!data) return fail(error, response);
    erasure.value = data;
    poll();
  };
  return html`<section class="records" aria-labelledby="forget-title">
    <h2 id="forget-title">Forget my data</h2>
    <p><a href="#/">Back to my todos</a></p>
    <div class="warning" role="note">
      <p><strong>Warning: this cannot be undone.</strong> It erases the content of all your todos and of every
      version in their history (titles, notes, tags, categories), and the copies kept for diagnosis.
      An administrator's legal hold can pause it until the hold is released.</p>
    </div>
    <button type="button" class="danger" onClick=${() => void forget()}>Forget my data</button>
    ${erasure.value && html`<${ErasureStatus} erasure=${erasure.value} />`}
  </section>`;
}
