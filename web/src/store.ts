// The todo list as the server holds it: the loaded pages, the list's
// filters, and every change sent with If-Match. A change the server
// refuses leaves what the user typed where it was and says why: a 412
// opens the conflict (the server's version beside the user's), a 409
// says where a moved todo went.
import { batch, signal } from "@preact/signals";
import type { operations } from "../../client/typescript/index";
import { api, asProblem, etagOf, type Problem, type Todo, type TodoPatch } from "./api";

/** How many todos one page asks for: the API's most. */
export const pageSize = 100;

export const todos = signal<Todo[]>([]);
/** The continuation of the next page, null when the server has no more. */
export const next = signal<string | null>(null);
export const loading = signal(false);
/** The last refusal, shown until dismissed or replaced. */
export const problem = signal<Problem | null>(null);
/** Every category seen, for the pickers. */
export const categories = signal<string[]>([]);

export type SortKey = "" | "dueDate" | "createdAt" | "updatedAt" | "title";
export const filter = {
  category: signal(""),
  q: signal(""),
  // Oldest first by default: the order todos were added in, as TodoMVC keeps it
  // across a reload (ids are random, so store order is not that order).
  sort: signal<SortKey>("createdAt"),
  order: signal<"asc" | "desc">("asc"),
};

/** A change the server refused with 412: what the user wanted and what the server holds. */
export interface Conflict {
  mine: TodoPatch;
  loaded: Todo;
  server: Todo;
  etag: string;
}
/** The changes refused with 412, offered to the user one after another, the first first. */
export const conflicts = signal<Conflict[]>([]);

/** Whether a refused change of the todo waits for the user. */
export function conflicted(id: string): boolean {
  return conflicts.value.some((c) => c.server.id === id);
}

// The entity tags of the todos as last read or written.
const etags = new Map<string, string>();
// The list loads under a generation number: an answer to an older query
// (the search typed on since) is dropped.
let generation = 0;

type ListQuery = NonNullable<operations["ListTodos"]["parameters"]["query"]>;

function listQuery(continuation: string | null): ListQuery {
  const q: ListQuery = { pageSize };
  if (filter.category.value) q.category = filter.category.value;
  if (filter.q.value.trim()) q.q = filter.q.value.trim();
  if (filter.sort.value) {
    q.sort = filter.sort.value;
    q.order = filter.order.value;
  }
  if (continuation) q.continuation = continuation;
  return q;
}

export function fail(error: unknown, res?: Response): void {
  problem.value = asProblem(error, res);
}

function see(items: Todo[]): void {
  const seen = new Set(categories.value);
  const before = seen.size;
  for (const t of items) seen.add(t.category);
  if (seen.size !== before) categories.value = [...seen].sort((a, b) => a.localeCompare(b));
}

/** Loads the first page of the list again, or the next one after those loaded. */
export async function load(more = false): Promise<void> {
  const gen = more ? generation : ++generation;
  if (!more) added.value = "";
  loading.value = true;
  try {
    const { data, error, response } = await api.GET("/api/todos", { params: { query: listQuery(more ? next.value : null) } });
    if (gen !== generation) return;
    if (error || !data) {
      fail(error, response);
      return;
    }
    batch(() => {
      if (more) {
        const have = new Set(todos.value.map((t) => t.id));
        todos.value = [...todos.value, ...data.items.filter((t) => !have.has(t.id))];
      } else {
        todos.value = data.items;
      }
      next.value = data.continuation ?? null;
      see(data.items);
    });
  } catch (e) {
    if (gen === generation) fail(e);
  } finally {
    if (gen === generation) loading.value = false;
  }
}

function replace(id: string, t: Todo | null): void {
  todos.value = t ? todos.value.map((x) => (x.id === id ? t : x)) : todos.value.filter((x) => x.id !== id);
}

/** Says where a todo just added is when the list does not show it. */
export const added = signal("");

/**
 * Creates a todo; false (with the problem shown) when the server refuses it.
 * The list shows it where the server would list it; where that is nowhere
 * in the list as loaded (another category, a search it does not match, or
 * past the todos loaded in the list's order), `added` says so instead.
 */
export async function create(title: string, category: string): Promise<boolean> {
  try {
    const { data, error, response } = await api.POST("/api/todos", { body: { title, category } });
    if (error || !data) {
      fail(error, response);
      return false;
    }
    etags.set(data.id, etagOf(response));
    see([data]);
    const place = placeOf(data);
    if (typeof place === "number") {
      todos.value = [...todos.value.slice(0, place), data, ...todos.value.slice(place)];
      added.value = "";
    } else {
      added.value = `Added "${data.title}" to ${data.category}; ${place}.`;
    }
    return true;
  } catch (e) {
    fail(e);
    return false;
  }
}

// placeOf is where the list, as the server orders it, holds the todo t: its
// index among the todos loaded, or why the list does not show it.
function placeOf(t: Todo): number | string {
  const category = filter.category.value;
  if (category && t.category !== category) return `the list shows ${category} only`;
  const q = filter.q.value.trim();
  if (q && !t.title.toLowerCase().includes(q.toLowerCase())) return `the list shows the titles with "${q}" only`;
  const key = filter.sort.value;
  if (!key) return todos.value.length;
  const at = todos.value.findIndex((x) => listOrder(key, t, x) < 0);
  if (at >= 0) return at;
  return next.value === null ? todos.value.length : `it comes after the ${todos.value.length} todos loaded: More lists it`;
}

// listOrder compares two todos in the list's sort as the server does: by
// the property (a todo without it first), then by id, in the list's order.
function listOrder(key: Exclude<SortKey, "">, a: Todo, b: Todo): number {
  const va = a[key] ?? null;
  const vb = b[key] ?? null;
  let d = va === vb ? 0 : va === null ? -1 : vb === null ? 1 : va < vb ? -1 : 1;
  if (d === 0) d = a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  return filter.order.value === "desc" ? -d : d;
}

/**
 * Takes a version the server wrote outside the list (a restore in the
 * history): the list shows it, and its next change is sent with its tag.
 */
export function written(t: Todo, res: Response): void {
  etags.set(t.id, etagOf(res));
  replace(t.id, t);
  see([t]);
}

// read gets a todo as the server holds it now, with its entity tag.
async function read(id: string): Promise<{ todo: Todo | null; etag: string; res?: Response; error?: unknown }> {
  const { data, error, response } = await api.GET("/api/todos/{id}", { params: { path: { id } } });
  if (error || !data) return { todo: null, etag: "", res: response, error };
  etags.set(id, etagOf(response));
  return { todo: data, etag: etagOf(response) };
}

// Changes of one todo go to the server one after another, each with the
// entity tag the one before it got back: a second click does not race the
// first, and no change is refused for a version this page wrote itself.
const queues = new Map<string, Promise<unknown>>();

function inTurn<T>(id: string, change: () => Promise<T>): Promise<T> {
  const next = (queues.get(id) ?? Promise.resolve()).then(change, change);
  const settled = next.catch(() => undefined);
  queues.set(id, settled);
  void settled.then(() => {
    if (queues.get(id) === settled) queues.delete(id);
  });
  return next;
}

function current(id: string): Todo | undefined {
  return todos.value.find((x) => x.id === id);
}

// A change shown before the server took it is a copy of the todo shown
// before it; madeFrom maps each such copy to that todo.
const madeFrom = new WeakMap<Todo, Todo>();

// served is a todo as the server last gave it, without the changes shown
// ahead of the server's answer: what a refusal names and compares.
function served(id: string, t: Todo): Todo {
  let x = current(id) ?? t;
  for (let from = madeFrom.get(x); from; from = madeFrom.get(x)) x = from;
  return x;
}

/**
 * Changes a todo, sending If-Match with the entity tag of the version the
 * user loaded. The title and completion are shown at once; the server's
 * answer replaces them. True when the server took the change; false when
 * it refused (the problem or the conflict is shown, the list shows what
 * the server holds, and nothing the user typed is lost).
 */
export function update(t: Todo, patch: TodoPatch): Promise<boolean> {
  const before = current(t.id) ?? t;
  const shown: Todo = { ...before };
  if (patch.title !== undefined) shown.title = patch.title;
  if (patch.isCompleted !== undefined) shown.isCompleted = patch.isCompleted;
  madeFrom.set(shown, before);
  replace(t.id, shown);
  return inTurn(t.id, async () => {
    const ok = await change(served(t.id, t), patch);
    if (!ok && !conflicted(t.id) && current(t.id)) await restore(t.id, before);
    return ok;
  });
}

// restore shows what the server holds of a todo after a refused change,
// or what the list showed before it when the server cannot be asked.
async function restore(id: string, before: Todo): Promise<void> {
  try {
    const now = await read(id);
    replace(id, now.todo ?? before);
  } catch {
    replace(id, before);
  }
}

async function change(t: Todo, patch: TodoPatch): Promise<boolean> {
  try {
    let etag = etags.get(t.id);
    if (!etag) {
      // A listed todo comes without its tag: the point read gives it, and
      // a newer version than the one shown is a conflict already.
      const now = await read(t.id);
      if (!now.todo) return gone(t, now.error, now.res, patch);
      if (now.todo.version !== t.version) return refused(t, patch, now.todo, now.etag);
      etag = now.etag;
    }
    return await send(t, patch, etag);
  } catch (e) {
    fail(e);
    return false;
  }
}

async function send(t: Todo, patch: TodoPatch, etag: string): Promise<boolean> {
  const { data, error, response } = await api.PATCH("/api/todos/{id}", {
    params: { path: { id: t.id }, header: { "If-Match": etag } },
    headers: { "Content-Type": "application/merge-patch+json" },
    body: patch,
  });
  if (data) {
    etags.set(t.id, etagOf(response));
    replace(t.id, data);
    see([data]);
    return true;
  }
  if (response.status === 412) {
    const now = await read(t.id);
    if (!now.todo) return gone(t, now.error, now.res, patch);
    return refused(t, patch, now.todo, now.etag);
  }
  if (response.status === 404 || (response.status === 409 && response.headers.get("Location"))) {
    return gone(t, error, response, patch);
  }
  fail(error, response);
  return false;
}

// refused queues a change the server refused for the user to resolve, and
// shows the server's version meanwhile: the list never shows a change the
// server did not take.
function refused(t: Todo, mine: TodoPatch, server: Todo, etag: string): false {
  replace(t.id, server);
  conflicts.value = [...conflicts.value, { mine, loaded: t, server, etag }];
  return false;
}

/** Resolves the first conflict: the user's change again over the server's version, or the server's, shown already. */
export async function resolve(keepMine: boolean): Promise<boolean> {
  const [c, ...rest] = conflicts.value;
  if (!c) return false;
  conflicts.value = rest;
  if (!keepMine) return true;
  return inTurn(c.server.id, async () => {
    try {
      return await send(c.server, c.mine, c.etag);
    } catch (e) {
      fail(e);
      return false;
    }
  });
}

// gone explains a todo that is no longer where the list had it: moved
// (409 or 404 with the new place in Location) or deleted. The list shows
// the moved todo at its new id; the message says what the change refused
// would have set, so that nothing the user typed goes with the todo's row.
async function gone(t: Todo, error: unknown, res?: Response, patch: TodoPatch = {}): Promise<false> {
  if (res?.status === 404 && !res.headers.get("Location")) {
    const moved = await whereIs(t.id);
    if (moved) return gone(t, moved.error, moved.response, patch);
  }
  const unsaved = Object.entries(patch).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  const lost = unsaved.length ? ` Not saved: ${unsaved.join(", ")}.` : "";
  const location = res?.headers.get("Location");
  const p = asProblem(error, res);
  if (location) {
    const id = decodeURIComponent(location.split("/").pop() ?? "");
    const now = id ? await read(id) : null;
    replace(t.id, now?.todo ?? null);
    const where = now?.todo ? `category "${now.todo.category}" (id ${id})` : `id ${id}`;
    problem.value = { ...p, detail: `${p.detail} "${t.title}" has moved to ${where}: the list shows it there now; make your change again there.${lost}` };
  } else if (res?.status === 404) {
    replace(t.id, null);
    problem.value = { ...p, detail: `${p.detail} "${t.title}" was deleted since you loaded it; it is gone from the list.${lost}` };
  } else {
    problem.value = p;
  }
  return false;
}

// noVersion is an entity tag no version has: a request made with it
// changes nothing (412 when the todo is there).
const noVersion = '"none"';

// whereIs asks where a todo that is not found went: a move addressed to
// its old id answers 409 with the new id in Location. It is sent with
// noVersion, so that it moves nothing even if the todo is there after all.
// The answer when the todo was moved, null otherwise.
async function whereIs(id: string): Promise<{ response: Response; error: unknown } | null> {
  const { response, error } = await api.POST("/api/todos/{id}/move", {
    params: { path: { id }, header: { "If-Match": noVersion } },
    body: { category: "-" },
  });
  return response.status === 409 && response.headers.get("Location") ? { response, error } : null;
}

/**
 * Deletes a todo with If-Match: a todo changed since the user loaded it is
 * not deleted, the list shows the server's version and says so.
 */
export function remove(t: Todo): Promise<boolean> {
  return inTurn(t.id, () => removeNow(served(t.id, t)));
}

async function removeNow(t: Todo): Promise<boolean> {
  try {
    let etag = etags.get(t.id);
    if (!etag) {
      const now = await read(t.id);
      if (!now.todo) return now.res?.status === 404 ? removeGone(t) : gone(t, now.error, now.res);
      if (now.todo.version !== t.version) return changedUnderDelete(t, now.todo, now.res);
      etag = now.etag;
    }
    const { error, response } = await api.DELETE("/api/todos/{id}", { params: { path: { id: t.id }, header: { "If-Match": etag } } });
    if (response.ok) {
      etags.delete(t.id);
      replace(t.id, null);
      return true;
    }
    if (response.status === 412) {
      const now = await read(t.id);
      if (now.todo) return changedUnderDelete(t, now.todo, response);
    }
    if (response.status === 404) return removeGone(t);
    fail(error, response);
    return false;
  } catch (e) {
    fail(e);
    return false;
  }
}

function changedUnderDelete(t: Todo, server: Todo, res?: Response): false {
  replace(t.id, server);
  problem.value = {
    type: "about:blank",
    title: "Changed since you loaded it",
    status: res?.status ?? 412,
    detail: `"${t.title}" is at version ${server.version} on the server; you loaded version ${t.version}. The list shows the server's version now: delete it again if you still mean to.`,
  };
  return false;
}

// removeGone ends a delete whose todo is not there: deleted already (the
// list drops it, as the user wanted), or moved (the list shows it where it
// went, and says so).
async function removeGone(t: Todo): Promise<boolean> {
  const moved = await whereIs(t.id);
  if (moved) return gone(t, moved.error, moved.response);
  etags.delete(t.id);
  replace(t.id, null);
  return true;
}

/**
 * Moves a todo to another category: a new id, where the scheme keys on
 * category. The todo at its new id, null when the server refused.
 */
export function move(t: Todo, category: string): Promise<Todo | null> {
  return inTurn(t.id, () => moveNow(served(t.id, t), category));
}

async function moveNow(t: Todo, category: string): Promise<Todo | null> {
  try {
    let etag = etags.get(t.id);
    if (!etag) {
      const now = await read(t.id);
      if (!now.todo) return gone(t, now.error, now.res).then(() => null);
      if (now.todo.version !== t.version) {
        replace(t.id, now.todo);
        problem.value = {
          type: "about:blank",
          title: "Changed since you loaded it",
          status: 412,
          detail: `"${t.title}" is at version ${now.todo.version} on the server; you loaded version ${t.version}. The list shows the server's version now: move it again if you still mean to.`,
        };
        return null;
      }
      etag = now.etag;
    }
    const { data, error, response } = await api.POST("/api/todos/{id}/move", {
      params: { path: { id: t.id }, header: { "If-Match": etag } },
      body: { category },
    });
    if (data) {
      etags.delete(t.id);
      etags.set(data.id, etagOf(response));
      replace(t.id, data);
      see([data]);
      return data;
    }
    if (response.status === 404 || (response.status === 409 && response.headers.get("Location"))) {
      await gone(t, error, response);
      return null;
    }
    fail(error, response);
    return null;
  } catch (e) {
    fail(e);
    return null;
  }
}

// scheme is the partition scheme, from /api/health, asked once when a
// category first changes.
let scheme: Promise<string> | null = null;

function partitionScheme(): Promise<string> {
  scheme ??= api.GET("/api/health").then(
    ({ data }) => data?.scheme ?? "",
    () => "",
  );
  return scheme;
}

/**
 * Saves the details panel's changes. A new category is a move where the
 * scheme keys on it (hierarchical, category: the id changes), then the
 * rest is changed on the new id; under synthetic it is one more field.
 * The todo's id once saved, null when the server refused.
 */
export async function save(t: Todo, patch: TodoPatch): Promise<string | null> {
  const { category, ...others } = patch;
  const rest: TodoPatch = others;
  let current = t;
  if (category !== undefined && (await partitionScheme()) !== "synthetic") {
    const moved = await move(t, category);
    if (!moved) return null;
    current = moved;
  } else if (category !== undefined) {
    rest.category = category;
  }
  return Object.keys(rest).length === 0 || (await update(current, rest)) ? current.id : null;
}

/** Marks every loaded todo completed, or every one active. */
export async function toggleAll(completed: boolean): Promise<void> {
  await Promise.all(todos.value.filter((t) => t.isCompleted !== completed).map((t) => update(t, { isCompleted: completed })));
}

/** Deletes every loaded completed todo. */
export async function clearCompleted(): Promise<void> {
  await Promise.all(todos.value.filter((t) => t.isCompleted).map((t) => remove(t)));
}
