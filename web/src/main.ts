// The page: reads its configuration, finds out who the user is, then shows
// the view the location's hash names.
import { signal } from "@preact/signals";
import { render, type ComponentType } from "preact";
import { useEffect } from "preact/hooks";
import { cost, waiting } from "./api";
import { identity, signIn, switchUser } from "./auth";
import { loadConfig, type PageConfig } from "./config";
import { html } from "./html";
import { ProblemAlert } from "./problem";
import { route, views, type Route, type ViewModule } from "./router";
import * as store from "./store";
import { ConflictDialog } from "./views/details";
import { TodoList } from "./views/todos";

const config = signal<PageConfig | null>(null);
const loaded = signal<Record<string, ComponentType<{ route: Route }>>>({});

function Session() {
  const cfg = config.value;
  const me = identity.value;
  if (!cfg) return null;
  const links = html`<a href="#/activity">My activity</a> <a href="#/forget">Forget my data</a>
    ${me.admin && html` <a href="#/admin">All users (admin)</a> <a href="#/manage/audit">Manage (admin)</a>`}`;
  switch (cfg.authMode) {
    case "dev":
      return html`<nav class="session" aria-label="Session">
        <form onSubmit=${(e: Event) => {
          e.preventDefault();
          switchUser(new FormData(e.currentTarget as HTMLFormElement).get("user") as string);
        }}>
          <label>User <input name="user" value=${me.user} autocomplete="off" /></label>
          <button type="submit">Switch user</button>
        </form>
        ${links}
      </nav>`;
    case "single":
      return html`<nav class="session" aria-label="Session"><span>Signed in as <strong>${me.user}</strong></span> ${links}</nav>`;
    default:
      return html`<nav class="session" aria-label="Session">
        ${me.user
          ? html`<span>Signed in as <strong>${me.user}</strong></span>
              ${links}
              <button type="button" class="link" onClick=${me.signOut}>Sign out</button>`
          : html`<button type="button" class="link" onClick=${me.signIn}>Sign in</button>`}
      </nav>`;
  }
}

function Cost() {
  const c = cost.value;
  return html`<p class="cost" role="status">
    ${waiting.value || (c && `scope ${c.scope || "—"} · ${c.charge || "—"} RU`)}
  </p>`;
}

function View() {
  const r = route.value;
  return r.view === "todos" ? html`<${TodoList} filter=${r.filter} />` : html`<${LazyView} key=${r.view} route=${r} />`;
}

// LazyView shows a view other than the list, loading its module first.
function LazyView({ route: r }: { route: Route }) {
  const View = loaded.value[r.view];
  useEffect(() => {
    if (!View) {
      views[r.view]!().then(
        (m: ViewModule) => (loaded.value = { ...loaded.value, [r.view]: m.default }),
        (e) => store.fail(e),
      );
    }
  }, [r.view, View]);
  return View ? html`<${View} route=${r} />` : html`<p role="status">Loading…</p>`;
}

function App() {
  const me = identity.value;
  const signedIn = me.user !== "" || config.value?.authMode === "single";
  return html`
    <${Session} />
    <main>
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${ProblemAlert} problem=${store.problem.value} onDismiss=${() => (store.problem.value = null)} />
      ${signedIn ? html`<${View} />` : html`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${Cost} />
    </main>
    ${store.conflicts.value[0] && html`<${ConflictDialog} conflict=${store.conflicts.value[0]} more=${store.conflicts.value.length - 1} />`}
  `;
}

async function main() {
  const root = document.getElementById("app")!;
  try {
    config.value = await loadConfig();
    await signIn(config.value);
  } catch (e) {
    store.fail(e);
  }
  root.textContent = "";
  render(html`<${App} />`, root);
  if (identity.value.user !== "" || config.value?.authMode === "single") {
    await store.load();
  }
}

void main();
