import{b as u,g as a,m as c,o as l,x as r}from"./chunk-VQVAES3U.js";function f(){let i=a([]),e=a(null),n=a(!1),d=async t=>{n.value=!0;try{let s=t&&e.value?{pageSize:100,continuation:e.value}:{pageSize:100},{data:o,error:m,response:p}=await c.GET("/api/manage/todos",{params:{query:s}});if(!o)return r(m,p);i.value=t?[...i.value,...o.items]:o.items,e.value=o.continuation??null}catch(s){r(s)}finally{n.value=!1}};return u(()=>{d(!1)},[]),l`<section class="admin" aria-labelledby="admin-title">
    <h2 id="admin-title">Every user's todos</h2>
    <p><a href="#/">Back to my todos</a></p>
    <table>
      <thead><tr><th scope="col">User</th><th scope="col">Category</th><th scope="col">Title</th><th scope="col">Done</th></tr></thead>
      <tbody>${i.value.map(t=>l`<tr key=${t.id}><td>${t.userId}</td><td>${t.category}</td><td>${t.title}</td><td>${t.isCompleted?"yes":"no"}</td></tr>`)}</tbody>
    </table>
    ${e.value!==null&&l`<button class="more" disabled=${n.value} onClick=${()=>{d(!0)}}>More</button>`}
  </section>`}export{f as default};
