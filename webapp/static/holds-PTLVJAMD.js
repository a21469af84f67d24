import{a as u,g as p}from"./chunk-46BDX5KF.js";import{g as i,m as s,o as r,x as n}from"./chunk-VQVAES3U.js";function y(){let l=i(null),d=async()=>{let{data:e,error:o,response:t}=await s.GET("/api/manage/holds");if(!e)return n(o,t);l.value=e.items};p(d);let c=async e=>{e.preventDefault();let o=e.currentTarget,t=new FormData(o),a=String(t.get("target")??"").trim(),f={reason:String(t.get("reason")??"").trim(),...t.get("kind")==="todo"?{todoId:a}:{userId:a}},{data:b,error:g,response:$}=await s.POST("/api/manage/holds",{body:f});if(!b)return n(g,$);o.reset(),await d()},m=async e=>{let o=prompt(`Release the hold on ${e.userId?`user ${e.userId}`:`todo ${e.todoId}`}? Give the reason for the release.`);if(!o)return;let{error:t,response:a}=await s.DELETE("/api/manage/holds/{id}",{params:{path:{id:e.id},query:{reason:o}}});if(!a.ok)return n(t,a);await d()};return r`<section class="records" aria-labelledby="holds-title">
    <h2 id="holds-title">Legal holds</h2>
    <form class="filters" aria-label="New legal hold" onSubmit=${c}>
      <label>Hold <select name="kind"><option value="user">a user's todos</option><option value="todo">one todo</option></select></label>
      <label>User or todo id <input name="target" required autocomplete="off" /></label>
      <label>Reason <input name="reason" required autocomplete="off" /></label>
      <button type="submit">Place hold</button>
    </form>
    ${l.value&&(l.value.length===0?r`<p>No legal hold is in force.</p>`:r`<ul class="holds" aria-label="Holds">
      ${l.value.map(e=>r`<li key=${e.id}>
        <strong>${e.userId?`User ${e.userId}`:`Todo ${e.todoId}`}</strong>: ${e.reason}
        <span class="muted"> — by ${e.createdBy}, ${u(e.createdAt)}</span>
        <button type="button" onClick=${()=>{m(e)}} aria-label=${`Release the hold on ${e.userId??e.todoId}`}>Release</button>
      </li>`)}
    </ul>`)}
  </section>`}export{y as default};
