import{c as w}from"./chunk-NPL3QNGQ.js";import{a as y,g as b}from"./chunk-VJQZ5XZL.js";import{f as u,l as p,m,n as r,v as g}from"./chunk-JBMN6QHN.js";async function v(d){if(d===0)return"";let n=d-1,l=n%256+1,c=w(0,Math.floor(n/256),l).replace(/^tile\/0\//,"tile/entries/"),h=await m(`/api/log/${c}`);if(!h.ok)return"";let i=new Uint8Array(await h.arrayBuffer()),e=0,o=new Uint8Array;for(let t=0;t<l&&e+2<=i.length;t++){let s=i[e]<<8|i[e+1];o=i.subarray(e+2,e+2+s),e+=2+s}let a=new TextDecoder().decode(o).split(`
`).find(t=>t.startsWith("at "));return a?a.slice(3).replace(/(\.\d{3})\d*/,"$1"):""}function x(d){let n=Math.max(0,Math.round((Date.now()-Date.parse(d))/1e3));return n<120?`${n} s ago`:n<7200?`${Math.round(n/60)} min ago`:`${Math.round(n/3600)} h ago`}function H(){let d=u(null),n=u(null),l=u(null),c=u(!1),h=async()=>{try{let t=await p.GET("/api/health");n.value=t.data??t.error;let s=await fetch("/api/log/checkpoint");if(!s.ok)return g(await s.json().catch(()=>null),s);let[f="",$="0",k=""]=(await s.text()).split(`
`);d.value={origin:f,size:Number($),root:k,newest:await v(Number($))}}catch(t){g(t)}},i=async()=>{c.value=!0;try{let{data:t,error:s,response:f}=await p.GET("/api/manage/log/verify");if(!t)return g(s,f);l.value=t}finally{c.value=!1}};b(h);let e=n.value,o=d.value,a=l.value;return r`<section class="records" aria-labelledby="log-title">
    <h2 id="log-title">Log and health</h2>
    <button type="button" onClick=${()=>{h()}}>Refresh</button>
    <dl class="facts" aria-label="Log state">
      ${e&&r`<dt>Health</dt><dd class=${e.status==="ok"?"ok":"bad"}>${e.status}${e.store?` (${e.store})`:""}</dd>
        ${e.audit&&r`<dt>Audit</dt><dd>${e.audit.state}, ${e.audit.lagSeconds===null?"lag not known here":`${e.audit.lagSeconds} s behind the todos`}</dd>`}`}
      ${o&&r`<dt>Log</dt><dd>${o.origin}</dd>
        <dt>Tree size</dt><dd>${o.size}</dd>
        <dt>Newest entry</dt><dd>${o.newest?`${y(o.newest)} (${x(o.newest)})`:o.size>0?"its time is not in the log, whose entries hold hashes only":"none"}</dd>
        <dt>Root</dt><dd class="digest">${o.root}</dd>`}
    </dl>
    <p>The walk reads every entry of the log and every stored version: slow on a large log.</p>
    <button type="button" disabled=${c.value} onClick=${()=>{i()}}>Walk the whole log</button>
    ${a&&r`<div role="status"><dl class="facts" aria-label="Log walk">
      <dt>Verdict</dt><dd class=${a.verified?"ok":"bad"}>${a.verified?"the log and the store agree":"problems found"}</dd>
      <dt>Entries walked</dt><dd>${a.entries}</dd>
      <dt>Not logged yet (integrator lag)</dt><dd>${a.pending} versions</dd>
      <dt>Anchoring</dt><dd>${a.problems.some(t=>t.kind==="storeBehindAnchor")?"the store is behind its anchored checkpoint":"the store extends its anchored checkpoint"}</dd>
      ${a.problems.map(t=>r`<dt>${t.kind}</dt><dd>${t.entityId?`${t.entityId} version ${t.version}`:t.index!==void 0?`the log's entry ${t.index}`:"the whole log"}</dd>`)}
    </dl></div>`}
  </section>`}export{H as default};
