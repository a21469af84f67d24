import{d as t,f as a}from"./chunk-VJQZ5XZL.js";import{l as r,n as i}from"./chunk-JBMN6QHN.js";function n(){return i`<${a} title="Audit" caption="Audit records" back=${!1}
    exportPath="/api/manage/audit/export" exportName="audit"
    list=${(e,o)=>r.GET("/api/manage/audit",{params:{query:{...e,pageSize:50,continuation:o}}})}
    extra=${e=>i`
      <${t} filters=${e} name="actor" label="Actor" />
      <${t} filters=${e} name="owner" label="Owner" />
      <${t} filters=${e} name="entityId" label="Todo id" />`} />`}export{n as default};
