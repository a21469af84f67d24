import{b as l,f as m,g as s,m as i,u as p}from"./chunk-KYXGQL4K.js";var a={audit:{title:"Audit",load:()=>import("./audit-NB4YA5W7.js")},holds:{title:"Legal holds",load:()=>import("./holds-Y5GCJBJ5.js")},erasures:{title:"Erasures",load:()=>import("./erasures-FSRGJWUQ.js")},partitions:{title:"Partitions",load:()=>import("./partitions-WOEOANNR.js")},deadletters:{title:"Dead letters",load:()=>import("./deadletters-5F3LIDVV.js")},log:{title:"Log and health",load:()=>import("./log-LNLH3T7U.js")}};function u({route:r}){let t=r.rest in a?r.rest:"audit",o=m(null);if(l(()=>{a[t].load().then(e=>o.value={name:t,view:e.default},e=>p(e))},[t]),!s.value.admin)return i`<p>These views are for admins.</p>`;let n=o.value?.name===t?o.value.view:null;return i`<div class="manage">
    <nav aria-label="Administration"><ul>
      ${Object.entries(a).map(([e,d])=>i`<li><a href=${`#/manage/${e}`} aria-current=${e===t?"page":void 0}>${d.title}</a></li>`)}
    </ul></nav>
    ${n?i`<${n} key=${t} />`:i`<p role="status">Loading…</p>`}
  </div>`}export{u as default};
