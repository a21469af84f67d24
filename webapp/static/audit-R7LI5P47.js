import{d as t,f as a}from"./chunk-46BDX5KF.js";import{m as i,o as r}from"./chunk-VQVAES3U.js";function n(){return r`<${a} title="Audit" caption="Audit records" back=${!1}
    exportPath="/api/manage/audit/export" exportName="audit"
    list=${(e,o)=>i.GET("/api/manage/audit",{params:{query:{...e,pageSize:50,form:2,continuation:o}}})}
    extra=${e=>r`
      <${t} filters=${e} name="actor" label="Actor" />
      <${t} filters=${e} name="owner" label="Owner" />
      <${t} filters=${e} name="entityId" label="Todo id" />`} />`}export{n as default};
