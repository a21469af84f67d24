// Dead letters at #/manage/deadletters: the change-feed documents the
// audit could not take, why, and their digest, page by page.
import { api } from "../../api";
import { html } from "../../html";
import { fail } from "../../store";
import { More, useLoad, usePages, when } from "../records";
import type { components } from "../../../../client/typescript/index";

type DeadLetter = components["schemas"]["DeadLetter"];

export default function DeadLetters() {
  const pages = usePages<DeadLetter>(async (continuation) => {
    const { data, error, response } = await api.GET("/api/manage/deadletters", { params: { query: { pageSize: 50, continuation } } });
    if (!data) return fail(error, response), null;
    return data;
  });
  useLoad(() => pages.load(false));
  return html`<section class="records" aria-labelledby="deadletters-title">
    <h2 id="deadletters-title">Dead letters</h2>
    <div class="scroll"><table>
      <caption>Documents the audit could not take</caption>
      <thead><tr><th scope="col">When</th><th scope="col">From</th><th scope="col">Reason</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead>
      <tbody>${pages.items.value.map((d) => html`<tr key=${d.id}>
        <td>${when(d.at)}</td><td>${d.source}</td><td>${d.reason}</td><td>${d.size} B</td><td class="digest">${d.sha256}</td></tr>`)}</tbody>
    </table></div>
    <${More} pages=${pages} what="dead letters" />
  </section>`;
}
