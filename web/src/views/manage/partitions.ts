// The partitions' load at #/manage/partitions: requests and RU per logical
// partition over the recent window, the heaviest first, each a bar whose
// length is its share of the heaviest's RU, its figures written beside it
// so that nothing is told by length or colour alone.
import { useSignal } from "@preact/signals";
import type { components } from "../../../../client/typescript/index";
import { api } from "../../api";
import { html } from "../../html";
import { fail } from "../../store";
import { useLoad } from "../records";

type Load = components["schemas"]["PartitionLoad"];

/** A partition that takes at least this share of the RU shown is called hot. */
const hotShare = 0.4;

export default function Partitions() {
  const load = useSignal<Load | null>(null);
  const container = useSignal("");
  const refresh = async () => {
    const query = container.value ? { top: 20, container: container.value } : { top: 20 };
    const { data, error, response } = await api.GET("/api/manage/partitions", { params: { query } });
    if (!data) return fail(error, response);
    load.value = data;
  };
  useLoad(refresh);
  const l = load.value;
  const rows = [...(l?.partitions ?? [])].sort((a, b) => b.ru - a.ru || b.requests - a.requests);
  const max = Math.max(...rows.map((p) => p.ru), Number.MIN_VALUE);
  const total = rows.reduce((sum, p) => sum + p.ru, 0);
  return html`<section class="records" aria-labelledby="partitions-title">
    <h2 id="partitions-title">Partitions' load</h2>
    ${l && html`<p>The last ${l.window} (per ${l.resolution}), counted on ${l.scope === "instance" ? "the instance that answered" : l.scope}.
      ${l.fleetQuery && html` ${l.fleetQuery.hint} Query: “${l.fleetQuery.name}” (${l.fleetQuery.table}).`}</p>`}
    <form class="filters" aria-label="Filters" onSubmit=${(e: Event) => { e.preventDefault(); void refresh(); }}>
      <label>Container <input name="container" value=${container.value} placeholder="all" autocomplete="off"
        onInput=${(e: Event) => (container.value = (e.currentTarget as HTMLInputElement).value.trim())} /></label>
      <button type="submit">Refresh</button>
    </form>
    ${l && (rows.length === 0 ? html`<p>No request in the window.</p>` : html`<ol class="bars" aria-label="Partitions by RU, heaviest first">
      ${rows.map((p) => {
        const key = `${p.container} / ${p.partitionKey?.join(" / ") ?? "(cross-partition)"}`;
        const hot = rows.length > 1 && p.ru >= hotShare * total;
        return html`<li key=${key} class=${hot ? "hot" : ""}>
          <span class="bar-label">${key}${hot && html` <strong>hot</strong>`}</span>
          <span class="bar" aria-hidden="true"><span style=${`width:${Math.max(1, (100 * p.ru) / max).toFixed(1)}%`}></span></span>
          <span class="bar-value">${p.ru.toFixed(2)} RU (${(100 * p.ruShare).toFixed(0)}%), ${p.requests} requests, ${p.scope}</span>
        </li>`;
      })}
    </ol>`)}
  </section>`;
}
