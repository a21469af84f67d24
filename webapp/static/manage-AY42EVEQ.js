import{b as l,f as m,g as s,n as i,v as p}from"./chunk-JBMN6QHN.js";var a={audit:{title:"Audit",load:()=>import("./audit-4XXWU7IH.js")},holds:{title:"Legal holds",load:()=>import("./holds-APC7BAFJ.js")},erasures:{title:"Erasures",load:()=>import("./erasures-GSCTWT5X.js")},partitions:{title:"Partitions",load:()=>import("./partitions-UGVTPB3W.js")},deadletters:{title:"Dead letters",load:()=>import("./deadletters-LSZPHBDY.js")},log:{title:"Log and health",load:()=>import("./log-Q3S5GXK2.js")}};function u({route:r}){let t=r.rest in a?r.rest:"audit",o=m(null);if(l(()=>{a[t].load().then(e=>o.value={name:t,view:e.default},e=>p(e))},[t]),!s.value.admin)return i`<p>These views are for admins.</p>`;let n=o.value?.name===t?o.value.view:null;return i`<div class="manage">
    <nav aria-label="Administration"><ul>
      ${Object.entries(a).map(([e,d])=>i`<li><a href=${`#/manage/${e}`} aria-current=${e===t?"page":void 0}>${d.title}</a></li>`)}
    </ul></nav>
    ${n?i`<${n} key=${t} />`:i`<p role="status">Loading…</p>`}
  </div>`}export{u as default};
