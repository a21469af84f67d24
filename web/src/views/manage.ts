// The operator's views under #/manage/<name>, for admins: each is a module
// of its own, loaded the first time it is shown.
import { useSignal } from "@preact/signals";
import type { ComponentType } from "preact";
import { useEffect } from "preact/hooks";
import { identity } from "../auth";
import { html } from "../html";
import type { Route } from "../router";
import { fail } from "../store";

type Section = { title: string; load: () => Promise<{ default: ComponentType }> };

/** The admin's views, in the order of their navigation. */
const sections: Record<string, Section> = {
  audit: { title: "Audit", load: () => import("./manage/audit") },
  holds: { title: "Legal holds", load: () => import("./manage/holds") },
  erasures: { title: "Erasures", load: () => import("./manage/erasures") },
  partitions: { title: "Partitions", load: () => import("./manage/partitions") },
  deadletters: { title: "Dead letters", load: () => import("./manage/deadletters") },
  log: { title: "Log and health", load: () => import("./manage/log") },
};

export default function Manage({ route }: { route: Route }) {
  const name = route.rest in sections ? route.rest : "audit";
  const shown = useSignal<{ name: string; view: ComponentType } | null>(null);
  useEffect(() => {
    sections[name]!.load().then((m) => (shown.value = { name, view: m.default }), (e) => fail(e));
  }, [name]);
  if (!identity.value.admin) return html`<p>These views are for admins.</p>`;
  const View = shown.value?.name === name ? shown.value.view : null;
  return html`<div class="manage">
    <nav aria-label="Administration"><ul>
      ${Object.entries(sections).map(([key, s]) => html`<li><a href=${`#/manage/${key}`} aria-current=${key === name ? "page" : undefined}>${s.title}</a></li>`)}
    </ul></nav>
    ${View ? html`<${View} key=${name} />` : html`<p role="status">Loading…</p>`}
  </div>`;
}
