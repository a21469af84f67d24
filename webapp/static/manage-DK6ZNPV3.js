import{b as l,f as m,g as s,m as i,u as p}from"./chunk-Q3GGEZ74.js";var a={audit:{title:"Audit",load:()=>import("./audit-ZI4ESASW.js")},holds:{title:"Legal holds",load:()=>import("./holds-JDQ6EDIA.js")},erasures:{title:"Erasures",load:()=>import("./erasures-2NTA4HUK.js")},partitions:{title:"Partitions",load:()=>import("./partitions-6O37D223.js")},deadletters:{title:"Dead letters",load:()=>import("./deadletters-F6QJPD33.js")},log:{title:"Log and health",load:()=>import("./log-DG2RNJET.js")}};function u({route:r}){let t=r.rest in a?r.rest:"audit",o=m(null);if(l(()=>{a[t].load().then(e=>o.value={name:t,view:e.default},e=>p(e))},[t]),!s.value.admin)return i`<p>These views are for admins.</p>`;let n=o.value?.name===t?o.value.view:null;return i`<div class="manage">
    <nav aria-label="Administration"><ul>
      ${Object.entries(a).map(([e,d])=>i`<li><a href=${`#/manage/${e}`} aria-current=${e===t?"page":void 0}>${d.title}</a></li>`)}
    </ul></nav>
    ${n?i`<${n} key=${t} />`:i`<p role="status">Loading…</p>`}
  </div>`}export{u as default};
