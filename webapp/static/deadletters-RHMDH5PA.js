import{a as d,b as l,c,g as i}from"./chunk-46BDX5KF.js";import{m as s,o as a,x as r}from"./chunk-VQVAES3U.js";function h(){let e=l(async t=>{let{data:o,error:n,response:p}=await s.GET("/api/manage/deadletters",{params:{query:{pageSize:50,continuation:t}}});return o||(r(n,p),null)});return i(()=>e.load(!1)),a`<section class="records" aria-labelledby="deadletters-title">
    <h2 id="deadletters-title">Dead letters</h2>
    <div class="scroll"><table>
      <caption>Documents the audit could not take</caption>
      <thead><tr><th scope="col">When</th><th scope="col">From</th><th scope="col">Reason</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead>
      <tbody>${e.items.value.map(t=>a`<tr key=${t.id}>
        <td>${d(t.at)}</td><td>${t.source}</td><td>${t.reason}</td><td>${t.size} B</td><td class="digest">${t.sha256}</td></tr>`)}</tbody>
    </table></div>
    <${c} pages=${e} what="dead letters" />
  </section>`}export{h as default};
