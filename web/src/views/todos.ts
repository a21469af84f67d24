// The todo list: TodoMVC's markup and behaviour to the letter, over the
// API, with this product's additions around it (category on create, the
// list's search, category filter, sort and paging, the details panel).
import { computed, useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { Todo } from "../api";
import { html } from "../html";
import type { Filter } from "../router";
import * as store from "../store";
import { DetailsPanel } from "./details";

const active = computed(() => store.todos.value.filter((t) => !t.isCompleted));
const completed = computed(() => store.todos.value.filter((t) => t.isCompleted));

/** The category a new todo gets when the user names none. */
export const defaultCategory = "Inbox";

function shown(filter: Filter): Todo[] {
  switch (filter) {
    case "active":
      return active.value;
    case "completed":
      return completed.value;
    default:
      return store.todos.value;
  }
}

export function TodoList({ filter }: { filter: Filter }) {
  const details = useSignal<Todo | null>(null);
  // closed ends the details panel; after a move its opener is gone, and the
  // focus, left on the body or in the closed panel, goes to the moved
  // todo's own Details button.
  const closed = (saved?: string) => {
    details.value = null;
    const at = document.activeElement;
    if (saved && (!at || at === document.body || at.closest("dialog:not([open])"))) {
      document.querySelector<HTMLElement>(`li[data-id="${CSS.escape(saved)}"] .details`)?.focus();
    }
  };
  const todos = store.todos.value;
  const left = active.value.length;
  const list = shown(filter);
  return html`
    <${NewTodo} />
    <p class="added" role="status">${store.added.value}</p>
    <${Toolbar} />
    ${todos.length > 0 &&
    html`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${left === 0}
          onChange=${(e: Event) => void store.toggleAll((e.currentTarget as HTMLInputElement).checked)} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${list.map((t) => html`<${Item} key=${t.id} todo=${t} onDetails=${() => (details.value = t)} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${left}</strong> ${left === 1 ? "item" : "items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${filter === "all" ? "selected" : ""}>All</a></li>
          <li><a href="#/active" class=${filter === "active" ? "selected" : ""}>Active</a></li>
          <li><a href="#/completed" class=${filter === "completed" ? "selected" : ""}>Completed</a></li>
        </ul>
        ${completed.value.length > 0 &&
        html`<button class="clear-completed" onClick=${() => void store.clearCompleted()}>Clear completed</button>`}
      </footer>`}
    <${Paging} />
    ${details.value && html`<${DetailsPanel} todo=${details.value} onClose=${closed} />`}
  `;
}

function NewTodo() {
  const input = useRef<HTMLInputElement>(null);
  const category = useSignal("");
  useEffect(() => input.current?.focus(), []);
  const onKeyDown = async (e: KeyboardEvent) => {
    if (e.key !== "Enter" || e.isComposing) return;
    const el = e.currentTarget as HTMLInputElement;
    const typed = el.value;
    const title = typed.trim();
    if (!title) return;
    el.value = "";
    const ok = await store.create(title, category.value.trim() || store.filter.category.value || defaultCategory);
    if (!ok && el.value === "") el.value = typed; // nothing the user typed is lost
  };
  return html`<div class="create">
    <input ref=${input} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${onKeyDown} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${store.filter.category.value || defaultCategory}
      value=${category.value} onInput=${(e: Event) => (category.value = (e.currentTarget as HTMLInputElement).value)} />
    <datalist id="categories">${store.categories.value.map((c) => html`<option value=${c} />`)}</datalist>
  </div>`;
}

function Toolbar() {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const f = store.filter;
  const reload = () => void store.load();
  const onSearch = (e: Event) => {
    f.q.value = (e.currentTarget as HTMLInputElement).value;
    clearTimeout(timer.current);
    timer.current = setTimeout(reload, 250);
  };
  return html`<div class="toolbar">
    <input type="search" class="search" aria-label="Search" placeholder="Search titles" value=${f.q.value} onInput=${onSearch}
      onKeyDown=${(e: KeyboardEvent) => e.key === "Enter" && (clearTimeout(timer.current), reload())} />
    <select aria-label="Category" value=${f.category.value}
      onChange=${(e: Event) => ((f.category.value = (e.currentTarget as HTMLSelectElement).value), reload())}>
      <option value="">All categories</option>
      ${store.categories.value.map((c) => html`<option value=${c}>${c}</option>`)}
    </select>
    <select aria-label="Sort by" value=${f.sort.value}
      onChange=${(e: Event) => ((f.sort.value = (e.currentTarget as HTMLSelectElement).value as store.SortKey), reload())}>
      <option value="">Store order</option>
      <option value="dueDate">Due date</option>
      <option value="createdAt">Created</option>
      <option value="updatedAt">Updated</option>
      <option value="title">Title</option>
    </select>
    <select aria-label="Order" value=${f.order.value} disabled=${!f.sort.value}
      onChange=${(e: Event) => ((f.order.value = (e.currentTarget as HTMLSelectElement).value as "asc" | "desc"), reload())}>
      <option value="asc">Ascending</option>
      <option value="desc">Descending</option>
    </select>
  </div>`;
}

function Paging() {
  const n = store.todos.value.length;
  if (store.next.value === null) {
    return store.loading.value && n === 0 ? html`<p class="paging" role="status">Loading…</p>` : null;
  }
  return html`<p class="paging">
    <span>${n} loaded; the server has more.</span>
    <button class="more" disabled=${store.loading.value} onClick=${() => void store.load(true)}>More</button>
  </p>`;
}

// refocus gives the focus, as the todo row li goes, to the todo after it,
// else the one before, else the new-todo input, unless the user has put it
// somewhere else already: never to the page's body.
function refocus(li: HTMLElement | null): () => void {
  const near = li?.nextElementSibling ?? li?.previousElementSibling;
  return () => {
    const at = document.activeElement;
    if (at && at !== document.body && !li?.contains(at)) return;
    const toggle = near?.isConnected ? near.querySelector<HTMLElement>(".toggle") : null;
    (toggle ?? document.querySelector<HTMLElement>(".new-todo"))?.focus();
  };
}

function Item({ todo, onDetails }: { todo: Todo; onDetails: () => void }) {
  const editing = useSignal(false);
  const text = useSignal(todo.title);
  const li = useRef<HTMLLIElement>(null);
  const edit = useRef<HTMLInputElement>(null);
  const toggle = useRef<HTMLInputElement>(null);
  // done is set once an edit has ended (saved or cancelled), so that the
  // blur which follows Enter or Escape does not save again.
  const done = useRef(false);
  // keyed is set when the keyboard ended the edit: the focus goes back to
  // the todo's checkbox, not to the page's body with the removed field.
  const keyed = useRef(false);
  useEffect(() => {
    if (editing.value) edit.current?.focus();
    else if (keyed.current) toggle.current?.focus();
    keyed.current = false;
  }, [editing.value]);

  const start = () => {
    text.value = todo.title;
    done.current = false;
    editing.value = true;
  };
  const destroy = async (): Promise<boolean> => {
    const then = refocus(li.current);
    const ok = await store.remove(todo);
    if (ok) then();
    return ok;
  };
  const save = async () => {
    if (done.current) return;
    done.current = true;
    const title = text.value.trim();
    editing.value = false;
    if (title === "") {
      if (!(await destroy())) reopen(text.value);
      return;
    }
    if (title !== todo.title && !(await store.update(todo, { title })) && !store.conflicted(todo.id)) reopen(text.value);
  };
  const reopen = (typed: string) => {
    text.value = typed;
    done.current = false;
    editing.value = true;
  };
  const onKeyDown = (e: KeyboardEvent) => {
    keyed.current = e.key === "Enter" || e.key === "Escape";
    if (e.key === "Enter") void save();
    if (e.key === "Escape") {
      done.current = true;
      text.value = todo.title;
      editing.value = false;
    }
  };
  const cls = [todo.isCompleted ? "completed" : "", editing.value ? "editing" : ""].filter(Boolean).join(" ");
  const due = todo.dueDate?.slice(0, 10);
  return html`<li ref=${li} class=${cls} data-id=${todo.id}>
    <div class="view">
      <input ref=${toggle} class="toggle" type="checkbox" checked=${todo.isCompleted} aria-label=${"Completed: " + todo.title}
        onChange=${(e: Event) => void store.update(todo, { isCompleted: (e.currentTarget as HTMLInputElement).checked })} />
      <label onDblClick=${start}>${todo.title}</label>
      <span class="meta">
        <span class="category">${todo.category}</span>
        ${due && html` <span class="due">due ${due}</span>`}
        ${(todo.tags ?? []).map((tag) => html` <span class="tag">#${tag}</span>`)}
        <a class="history-link" href=${"#/todos/" + encodeURIComponent(todo.id)} aria-label=${"History of " + todo.title}>History</a>
      </span>
      <button class="details" aria-label=${"Details of " + todo.title} onClick=${onDetails}>⋯</button>
      <button class="destroy" aria-label=${"Delete " + todo.title} onClick=${() => void destroy()}></button>
    </div>
    ${editing.value &&
    html`<input ref=${edit} class="edit" aria-label=${"Edit " + todo.title} value=${text.value}
      onInput=${(e: Event) => (text.value = (e.currentTarget as HTMLInputElement).value)}
      onKeyDown=${onKeyDown} onBlur=${() => void save()} />`}
  </li>`;
}
