import{b as l,g as m,h as s,o as i,x as p}from"./chunk-VQVAES3U.js";var a={audit:{title:"Audit",load:()=>import("./audit-R7LI5P47.js")},holds:{title:"Legal holds",load:()=>import("./holds-PTLVJAMD.js")},erasures:{title:"Erasures",load:()=>import("./erasures-XVLFTAKN.js")},partitions:{title:"Partitions",load:()=>import("./partitions-S3THZITI.js")},deadletters:{title:"Dead letters",load:()=>import("./deadletters-RHMDH5PA.js")},log:{title:"Log and health",load:()=>import("./log-RGUG3ADA.js")}};function u({route:r}){let t=r.rest in a?r.rest:"audit",o=m(null);if(l(()=>{a[t].load().then(e=>o.value={name:t,view:e.default},e=>p(e))},[t]),!s.value.admin)return i`<p>These views are for admins.</p>`;let n=o.value?.name===t?o.value.view:null;return i`<div class="manage">
    <nav aria-label="Administration"><ul>
      ${Object.entries(a).map(([e,d])=>i`<li><a href=${`#/manage/${e}`} aria-current=${e===t?"page":void 0}>${d.title}</a></li>`)}
    </ul></nav>
    ${n?i`<${n} key=${t} />`:i`<p role="status">Loading…</p>`}
  </div>`}export{u as default};
