import{b as g,f as u,l as v,m as r,u as p}from"./chunk-46GF7BWJ.js";var b=["create","update","delete","rollback","move","erase"];function $(t){let n={};for(let[e,o]of Object.entries(t))o&&(n[e]=e==="since"||e==="until"?new Date(o).toISOString():o);return n}function h(t){return t?new Date(t).toLocaleString():""}function k(t){let n=u([]),e=u(null),o=u(!1),i=u(!1);return{items:n,next:e,loading:o,loaded:i,load:async c=>{o.value=!0;try{let a=await t(c?e.value??void 0:void 0);if(!a)return;n.value=c?[...n.value,...a.items]:a.items,e.value=a.continuation??null,i.value=!0}catch(a){p(a)}finally{o.value=!1}}}}function w({pages:t,what:n}){let e=t.items.value.length;return r`<p class="paging" aria-live="polite">
    ${t.loaded.value&&(e===0?`No ${n}.`:`${e} ${n} loaded${t.next.value!==null?"; the server has more.":"."}`)}
    ${t.next.value!==null&&r` <button type="button" class="more" disabled=${t.loading.value} onClick=${()=>{t.load(!0)}}>More</button>`}
  </p>`}function d({filters:t,name:n,label:e,type:o="text"}){return r`<label>${e} <input type=${o} name=${n} value=${t.value[n]??""}
    onInput=${i=>t.value={...t.value,[n]:i.currentTarget.value}} /></label>`}function P({filters:t}){let n=e=>o=>t.value={...t.value,[e]:o.currentTarget.value};return r`
    <label>Operation <select name="operation" value=${t.value.operation??""} onChange=${n("operation")}>
      <option value="">Any operation</option>
      ${b.map(e=>r`<option value=${e}>${e}</option>`)}
    </select></label>
    <${d} filters=${t} name="category" label="Category" />
    <${d} filters=${t} name="since" label="From" type="datetime-local" />
    <${d} filters=${t} name="until" label="Until" type="datetime-local" />`}function y(t){let n=t.entity;return t.entityType==="erasure"?`erasure of ${String(n.userId??"")}: ${String(n.state??"")}`:String(n.title??"")}function C({items:t,caption:n}){return r`<div class="scroll"><table>
    <caption>${n}</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col">Actor</th><th scope="col">Todo</th><th scope="col">Version</th></tr></thead>
    <tbody>${t.map(e=>r`<tr key=${e.id}>
      <td>${h(e.dateCreatedUtc)}</td><td>${e.operation}</td><td>${e.actor}</td>
      <td>${e.entityType==="todo"?r`<a href=${`#/todos/${encodeURIComponent(e.entityId)}`}>${y(e)||e.entityId}</a>`:y(e)}</td>
      <td>${e.version}</td></tr>`)}</tbody>
  </table></div>`}async function f(t,n,e,o,i=""){try{let{data:l,error:c,response:a}=await v.GET(t,{params:{query:n,path:{id:i},header:{Accept:e?"text/csv":"application/x-ndjson"}},parseAs:"blob"});if(!l)return p(c,a);let m=URL.createObjectURL(l),s=document.createElement("a");s.href=m,s.download=`${o}.${e?"csv":"ndjson"}`,document.body.append(s),s.click(),s.remove(),setTimeout(()=>URL.revokeObjectURL(m),6e4)}catch(l){p(l)}}function A({path:t,filters:n,name:e,id:o}){return r`<p class="exports">
    <button type="button" onClick=${()=>{f(t,$(n),!1,e,o)}}>Export NDJSON</button>
    <button type="button" onClick=${()=>{f(t,$(n),!0,e,o)}}>Export CSV</button>
  </p>`}function F(t){g(()=>{t()},[])}export{$ as a,h as b,k as c,w as d,d as e,P as f,C as g,A as h,F as i};
