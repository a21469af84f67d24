import{b as f,g as p,m as v,o as i,x as d}from"./chunk-VQVAES3U.js";var R=["create","update","delete","rollback","move","erase"];function $(t){let n={};for(let[e,o]of Object.entries(t))o&&(n[e]=e==="since"||e==="until"?new Date(o).toISOString():o);return n}function w(t){return t?new Date(t).toLocaleString():""}function E(t){let n=p([]),e=p(null),o=p(!1),s=p(!1);return{items:n,next:e,loading:o,loaded:s,load:async u=>{o.value=!0;try{let r=await t(u?e.value??void 0:void 0);if(!r)return;n.value=u?[...n.value,...r.items]:r.items,e.value=r.continuation??null,s.value=!0}catch(r){d(r)}finally{o.value=!1}}}}function S({pages:t,what:n}){let e=t.items.value.length;return i`<p class="paging" aria-live="polite">
    ${t.loaded.value&&(e===0?`No ${n}.`:`${e} ${n} loaded${t.next.value!==null?"; the server has more.":"."}`)}
    ${t.next.value!==null&&i` <button type="button" class="more" disabled=${t.loading.value} onClick=${()=>{t.load(!0)}}>More</button>`}
  </p>`}function m({filters:t,name:n,label:e,type:o="text"}){return i`<label>${e} <input type=${o} name=${n} value=${t.value[n]??""}
    onInput=${s=>t.value={...t.value,[n]:s.currentTarget.value}} /></label>`}function k({filters:t}){let n=e=>o=>t.value={...t.value,[e]:o.currentTarget.value};return i`
    <label>Operation <select name="operation" value=${t.value.operation??""} onChange=${n("operation")}>
      <option value="">Any operation</option>
      ${R.map(e=>i`<option value=${e}>${e}</option>`)}
    </select></label>
    <${m} filters=${t} name="category" label="Category" />
    <${m} filters=${t} name="since" label="From" type="datetime-local" />
    <${m} filters=${t} name="until" label="Until" type="datetime-local" />`}function b(t){let n=t.entity;return t.entityType==="erasure"?`erasure of ${String(n.userId??"")}: ${String(n.state??"")}`:String(n.title??"")}function T({items:t,caption:n}){return i`<div class="scroll"><table>
    <caption>${n}</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col">Actor</th><th scope="col">Todo</th><th scope="col">Version</th></tr></thead>
    <tbody>${t.map(e=>i`<tr key=${e.id}>
      <td>${w(e.dateCreatedUtc)}</td><td>${e.operation}</td><td>${e.actor}</td>
      <td>${e.entityType==="todo"?i`<a href=${`#/todos/${encodeURIComponent(e.entityId)}`}>${b(e)||e.entityId}</a>`:b(e)}</td>
      <td>${e.version}</td></tr>`)}</tbody>
  </table></div>`}async function y(t,n,e,o,s=""){try{let{data:l,error:u,response:r}=await v.GET(t,{params:{query:n,path:{id:s},header:{Accept:e?"text/csv":"application/x-ndjson"}},parseAs:"blob"});if(!l)return d(u,r);let c=URL.createObjectURL(l),a=document.createElement("a");a.href=c,a.download=`${o}.${e?"csv":"ndjson"}`,document.body.append(a),a.click(),a.remove(),setTimeout(()=>URL.revokeObjectURL(c),6e4)}catch(l){d(l)}}function P({path:t,filters:n,name:e,id:o}){return i`<p class="exports">
    <button type="button" onClick=${()=>{y(t,$(n),!1,e,o)}}>Export NDJSON</button>
    <button type="button" onClick=${()=>{y(t,$(n),!0,e,o)}}>Export CSV</button>
  </p>`}function U({title:t,caption:n,list:e,exportPath:o,exportName:s,extra:l,back:u}){let r=p({}),c=E(async a=>{let{data:g,error:h,response:x}=await e($(r.value),a);return g||(d(h,x),null)});return A(()=>c.load(!1)),i`<section class="records" aria-labelledby="records-title">
    <h2 id="records-title">${t}</h2>
    ${u&&i`<p><a href="#/">Back to my todos</a></p>`}
    <form class="filters" aria-label="Filters" onSubmit=${a=>{a.preventDefault(),c.load(!1)}}>
      ${l?.(r)}
      <${k} filters=${r} />
      <button type="submit">Apply</button>
    </form>
    <${P} path=${o} filters=${r.value} name=${s} />
    <${T} items=${c.items.value} caption=${n} />
    <${S} pages=${c} what="records" />
  </section>`}function A(t){f(()=>{t()},[])}export{w as a,E as b,S as c,m as d,P as e,U as f,A as g};
