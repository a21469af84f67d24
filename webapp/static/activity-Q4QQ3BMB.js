import{a as p,c,d as m,f as n,g as u,h as f,i as y}from"./chunk-HGE2EU3R.js";import{f as r,l as o,m as s,u as l}from"./chunk-46GF7BWJ.js";function $(){let e=r({}),t=c(async i=>{let{data:a,error:d,response:v}=await o.GET("/api/activity",{params:{query:{...p(e.value),pageSize:50,continuation:i}}});return a||(l(d,v),null)});return y(()=>t.load(!1)),s`<section class="records" aria-labelledby="activity-title">
    <h2 id="activity-title">My activity</h2>
    <p><a href="#/">Back to my todos</a></p>
    <form class="filters" aria-label="Filters" onSubmit=${i=>{i.preventDefault(),t.load(!1)}}>
      <${n} filters=${e} />
      <button type="submit">Apply</button>
    </form>
    <${f} path="/api/activity/export" filters=${e.value} name="my-activity" />
    <${u} items=${t.items.value} caption="Activity" />
    <${m} pages=${t} what="records" />
  </section>`}export{$ as default};
