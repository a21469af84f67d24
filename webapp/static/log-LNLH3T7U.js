import{c as m}from"./chunk-NPL3QNGQ.js";import{a as w,g as y}from"./chunk-VEYWH5ZG.js";import{f as u,l as f,m as r,u as g}from"./chunk-KYXGQL4K.js";async function k(s){if(s===0)return"";let o=s-1,l=o%256+1,c=m(0,Math.floor(o/256),l).replace(/^tile\/0\//,"tile/entries/"),h=await fetch(`/api/log/${c}`);if(!h.ok)return"";let i=new Uint8Array(await h.arrayBuffer()),e=0,n=new Uint8Array;for(let t=0;t<l&&e+2<=i.length;t++){let d=i[e]<<8|i[e+1];n=i.subarray(e+2,e+2+d),e+=2+d}let a=new TextDecoder().decode(n).split(`
`).find(t=>t.startsWith("at "));return a?a.slice(3).replace(/(\.\d{3})\d*/,"$1"):""}function v(s){let o=Math.max(0,Math.round((Date.now()-Date.parse(s))/1e3));return o<120?`${o} s ago`:o<7200?`${Math.round(o/60)} min ago`:`${Math.round(o/3600)} h ago`}function H(){let s=u(null),o=u(null),l=u(null),c=u(!1),h=async()=>{try{let t=await f.GET("/api/health");o.value=t.data??t.error;let d=await fetch("/api/log/checkpoint");if(!d.ok)return g(await d.json().catch(()=>null),d);let[p="",$="0",b=""]=(await d.text()).split(`
`);s.value={origin:p,size:Number($),root:b,newest:await k(Number($))}}catch(t){g(t)}},i=async()=>{c.value=!0;try{let{data:t,error:d,response:p}=await f.GET("/api/manage/log/verify");if(!t)return g(d,p);l.value=t}finally{c.value=!1}};y(h);let e=o.value,n=s.value,a=l.value;return r`<section class="records" aria-labelledby="log-title">
    <h2 id="log-title">Log and health</h2>
    <button type="button" onClick=${()=>{h()}}>Refresh</button>
    <dl class="facts" aria-label="Log state">
      ${e&&r`<dt>Health</dt><dd class=${e.status==="ok"?"ok":"bad"}>${e.status}${e.store?` (${e.store})`:""}</dd>
        ${e.audit&&r`<dt>Audit</dt><dd>${e.audit.state}, ${e.audit.lagSeconds===null?"lag not known here":`${e.audit.lagSeconds} s behind the todos`}</dd>`}`}
      ${n&&r`<dt>Log</dt><dd>${n.origin}</dd>
        <dt>Tree size</dt><dd>${n.size}</dd>
        <dt>Newest entry</dt><dd>${n.newest?`${w(n.newest)} (${v(n.newest)})`:"none"}</dd>
        <dt>Root</dt><dd class="digest">${n.root}</dd>`}
    </dl>
    <p>The walk reads every entry of the log and every stored version: slow on a large log.</p>
    <button type="button" disabled=${c.value} onClick=${()=>{i()}}>Walk the whole log</button>
    ${a&&r`<div role="status"><dl class="facts" aria-label="Log walk">
      <dt>Verdict</dt><dd class=${a.verified?"ok":"bad"}>${a.verified?"the log and the store agree":"problems found"}</dd>
      <dt>Entries walked</dt><dd>${a.entries}</dd>
      <dt>Not logged yet (integrator lag)</dt><dd>${a.pending} versions</dd>
      <dt>Anchoring</dt><dd>${a.problems.some(t=>t.kind==="storeBehindAnchor")?"the store is behind its anchored checkpoint":"the store extends its anchored checkpoint"}</dd>
      ${a.problems.map(t=>r`<dt>${t.kind}</dt><dd>${t.entityId?`${t.entityId} version ${t.version}`:"the whole log"}</dd>`)}
    </dl></div>`}
  </section>`}export{H as default};
