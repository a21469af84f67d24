import{a as d,b as p}from"./chunk-QLAXITAC.js";import"./chunk-46BDX5KF.js";import{b as f,g as i,m as u,o as l,x as c}from"./chunk-VQVAES3U.js";function h(){let a=i(null),s=i(()=>{});f(()=>()=>s.value(),[]);let m=e=>{s.value(),s.value=d(a,async()=>{let{data:t,error:r,response:o}=await u.GET("/api/manage/erasures/{id}",{params:{path:{id:e}}});if(!t)throw Object.assign(new Error(r?.title??String(o.status)),r);return t})};return l`<section class="records" aria-labelledby="erasures-title">
    <h2 id="erasures-title">Erasures</h2>
    <form class="filters" aria-label="Request an erasure" onSubmit=${async e=>{e.preventDefault();let t=new FormData(e.currentTarget),r=String(t.get("userId")??"").trim(),o=String(t.get("reason")??"").trim();if(!confirm(`Erase the personal content of user ${r}? This erases, for good, the titles, notes, tags and categories of all of ${r}'s todos, of every version in their history and of their dead letters. It cannot be undone; a legal hold on the user pauses it.`))return;let{data:n,error:b,response:g}=await u.POST("/api/manage/erasures",{body:{userId:r,reason:o}});if(!n)return c(b,g);a.value=n,m(n.id)}}>
      <label>User id <input name="userId" required autocomplete="off" /></label>
      <label>Reason <input name="reason" required autocomplete="off" /></label>
      <button type="submit" class="danger">Erase this user's data</button>
    </form>
    <form class="filters" aria-label="Follow an erasure" onSubmit=${e=>{e.preventDefault(),m(String(new FormData(e.currentTarget).get("id")??"").trim())}}>
      <label>Erasure id <input name="id" required autocomplete="off" pattern="erasure-[0-9a-f]{32}" /></label>
      <button type="submit">Show</button>
    </form>
    ${a.value&&l`<${p} erasure=${a.value} />`}
  </section>`}export{h as default};
