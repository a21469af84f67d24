import{a as u,c as d,d as m,e as r,f as p,g as f,h as c,i as $}from"./chunk-HGE2EU3R.js";import{f as o,l,m as s,u as n}from"./chunk-46GF7BWJ.js";function g(){let e=o({}),t=d(async a=>{let{data:i,error:b,response:y}=await l.GET("/api/manage/audit",{params:{query:{...u(e.value),pageSize:50,continuation:a}}});return i||(n(b,y),null)});return $(()=>t.load(!1)),s`<section class="records" aria-labelledby="audit-title">
    <h2 id="audit-title">Audit</h2>
    <form class="filters" aria-label="Filters" onSubmit=${a=>{a.preventDefault(),t.load(!1)}}>
      <${r} filters=${e} name="actor" label="Actor" />
      <${r} filters=${e} name="owner" label="Owner" />
      <${r} filters=${e} name="entityId" label="Todo id" />
      <${p} filters=${e} />
      <button type="submit">Apply</button>
    </form>
    <${c} path="/api/manage/audit/export" filters=${e.value} name="audit" />
    <${f} items=${t.items.value} caption="Audit records" />
    <${m} pages=${t} what="records" />
  </section>`}export{g as default};
