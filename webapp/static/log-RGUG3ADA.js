import{c as y}from"./chunk-RMNAERRB.js";import{a as b,g as k}from"./chunk-46BDX5KF.js";import{g as u,m as p,n as w,o as r,x as g}from"./chunk-VQVAES3U.js";async function L(s){if(s===0)return"";let n=s-1,l=n%256+1,c=y(0,Math.floor(n/256),l).replace(/^tile\/0\//,"tile/entries/"),h=await w(`/api/log/${c}`);if(!h.ok)return"";let i=new Uint8Array(await h.arrayBuffer()),e=0,o=new Uint8Array;for(let t=0;t<l&&e+2<=i.length;t++){let d=i[e]<<8|i[e+1];o=i.subarray(e+2,e+2+d),e+=2+d}let a=new TextDecoder().decode(o).split(`
`).find(t=>t.startsWith("at "));return a?a.slice(3).replace(/(\.\d{3})\d*/,"$1"):""}function H(s){let n=Math.max(0,Math.round((Date.now()-Date.parse(s))/1e3));return n<120?`${n} s ago`:n<7200?`${Math.round(n/60)} min ago`:`${Math.round(n/3600)} h ago`}function M(){let s=u(null),n=u(null),l=u(null),c=u(!1),h=async()=>{try{let t=await p.GET("/api/health");n.value=t.data??t.error;let d=await fetch("/api/log/checkpoint");if(!d.ok)return g(await d.json().catch(()=>null),d);let[f="",$="0",v=""]=(await d.text()).split(`
`),m=d.headers.get("Last-Modified"),x=await L(Number($))||(m?new Date(m).toISOString():"");s.value={origin:f,size:Number($),root:v,newest:x}}catch(t){g(t)}},i=async()=>{c.value=!0;try{let{data:t,error:d,response:f}=await p.GET("/api/manage/log/verify");if(!t)return g(d,f);l.value=t}finally{c.value=!1}};k(h);let e=n.value,o=s.value,a=l.value;return r`<section class="records" aria-labelledby="log-title">
    <h2 id="log-title">Log and health</h2>
    <button type="button" onClick=${()=>{h()}}>Refresh</button>
    <dl class="facts" aria-label="Log state">
      ${e&&r`<dt>Health</dt><dd class=${e.status==="ok"?"ok":"bad"}>${e.status}${e.store?` (${e.store})`:""}</dd>
        ${e.audit&&r`<dt>Audit</dt><dd>${e.audit.state}, ${e.audit.lagSeconds===null?"lag not known here":`${e.audit.lagSeconds} s behind the todos`}</dd>`}`}
      ${o&&r`<dt>Log</dt><dd>${o.origin}</dd>
        <dt>Tree size</dt><dd>${o.size}</dd>
        <dt>Newest entry</dt><dd>${o.newest?`${b(o.newest)} (${H(o.newest)})`:"none"}</dd>
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
  </section>`}export{M as default};
