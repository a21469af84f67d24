// The details panel of one todo (title, tags, due date, notes, its
// category) and the conflict dialog a 412 opens. Both are native modal
// dialogs: focus stays inside, Escape closes.
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { Problem, Todo, TodoPatch } from "../api";
import { html } from "../html";
import { ProblemAlert } from "../problem";
import * as store from "../store";

// useModal opens a <dialog> as a modal once it is in the page.
function useModal() {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return ref;
}

const tagList = (s: string) => s.split(",").map((t) => t.trim()).filter(Boolean);

/** The patch that turns todo into what the form holds: only what changed. */
function changes(todo: Todo, f: { title: string; tags: string; due: string; notes: string; category: string }): TodoPatch {
  const p: TodoPatch = {};
  const title = f.title.trim();
  if (title !== todo.title) p.title = title;
  const tags = tagList(f.tags);
  if (tags.join(",") !== (todo.tags ?? []).join(",")) p.tags = tags.length ? tags : null;
  const due = f.due ? f.due + "T00:00:00Z" : null;
  if ((due ?? "").slice(0, 10) !== (todo.dueDate ?? "").slice(0, 10)) p.dueDate = due;
  const notes = f.notes;
  if (notes !== (todo.notes ?? "")) p.notes = notes === "" ? null : notes;
  const category = f.category.trim();
  if (category && category !== todo.category) p.category = category;
  return p;
}

/**
 * The details panel of todo. onClose is called once it has closed, with the
 * todo's id after a save (a move changes it): the browser gives the focus
 * back to the control that opened the panel, unless a move took it away.
 */
export function DetailsPanel({ todo, onClose }: { todo: Todo; onClose: (saved?: string) => void }) {
  const ref = useModal();
  const saved = useRef<string | undefined>(undefined);
  const form = useSignal({
    title: todo.title,
    tags: (todo.tags ?? []).join(", "),
    due: todo.dueDate?.slice(0, 10) ?? "",
    notes: todo.notes ?? "",
    category: todo.category,
  });
  const busy = useSignal(false);
  // A refused save is shown here, in the dialog, where it is not inert.
  const problem = useSignal<Problem | null>(null);
  const set = (k: keyof typeof form.value) => (e: Event) => {
    form.value = { ...form.value, [k]: (e.currentTarget as HTMLInputElement).value };
  };
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    problem.value = null;
    const shown = store.problem.value;
    try {
      const id = await store.save(todo, changes(todo, form.value));
      if (id !== null) {
        saved.current = id;
        ref.current?.close();
      } else if (store.problem.value !== shown) {
        problem.value = store.problem.value;
        store.problem.value = shown;
      }
    } finally {
      busy.value = false;
    }
  };
  const f = form.value;
  return html`<dialog ref=${ref} class="panel" aria-labelledby="panel-title" onClose=${() => onClose(saved.current)}>
    <form onSubmit=${onSubmit}>
      <h2 id="panel-title">Edit todo</h2>
      <${ProblemAlert} problem=${problem.value} onDismiss=${() => (problem.value = null)} />
      <label>Title <input name="title" required maxLength="1024" value=${f.title} onInput=${set("title")} /></label>
      <label>Tags <input name="tags" placeholder="comma, separated" value=${f.tags} onInput=${set("tags")} /></label>
      <label>Due <input name="due" type="date" value=${f.due} onInput=${set("due")} /></label>
      <label>Notes <textarea name="notes" rows="4" value=${f.notes} onInput=${set("notes")}></textarea></label>
      <label>Move to category <input name="category" list="categories" value=${f.category} onInput=${set("category")} /></label>
      <p class="hint">Version ${todo.version}, updated ${todo.updatedAt.slice(0, 16).replace("T", " ")} UTC. Id <code>${todo.id}</code></p>
      <div class="buttons">
        <button type="submit" disabled=${busy.value}>Save</button>
        <button type="button" onClick=${() => ref.current?.close()}>Close</button>
      </div>
    </form>
  </dialog>`;
}

const shownFields: (keyof TodoPatch)[] = ["title", "isCompleted", "tags", "dueDate", "notes", "category"];

function show(v: unknown): string {
  if (v === undefined || v === null || v === "") return "—";
  if (Array.isArray(v)) return v.join(", ") || "—";
  if (typeof v === "boolean") return v ? "completed" : "active";
  return String(v);
}

/** The 412 dialog: the user's change beside the server's version, and the
 * two ways out; more says how many refused changes wait after this one. */
export function ConflictDialog({ conflict, more }: { conflict: store.Conflict; more: number }) {
  const ref = useModal();
  const fields = shownFields.filter((k) => k in conflict.mine);
  const server = conflict.server as unknown as Record<string, unknown>;
  const mine = conflict.mine as Record<string, unknown>;
  return html`<dialog ref=${ref} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
    onCancel=${(e: Event) => e.preventDefault()}>
    <h2 id="conflict-title">Changed since you loaded it</h2>
    <p id="conflict-detail">
      "${conflict.loaded.title}" is at version ${conflict.server.version} on the server; you loaded version ${conflict.loaded.version}.
      Keep yours (it is sent again over the server's version) or take the server's.
      ${more > 0 && ` ${more} more refused ${more === 1 ? "change follows" : "changes follow"}.`}
    </p>
    <table>
      <thead><tr><th scope="col">Field</th><th scope="col">Yours</th><th scope="col">Server's</th></tr></thead>
      <tbody>
        ${fields.map((k) => html`<tr><th scope="row">${k}</th><td class="mine">${show(mine[k])}</td><td class="theirs">${show(server[k])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${() => void store.resolve(true)}>Keep mine</button>
      <button onClick=${() => void store.resolve(false)}>Take theirs</button>
    </div>
  </dialog>`;
}
