import{a as f,b as c}from"./chunk-QLAXITAC.js";import"./chunk-46BDX5KF.js";import{b as l,g as r,h as u,m as a,o as s,x as d}from"./chunk-VQVAES3U.js";function g(){let e=r(null),o=r(()=>{}),n=()=>{o.value(),o.value=f(e,async()=>{let{data:i,response:t}=await a.GET("/api/me/erasure");return i??(t.status===404?null:Promise.reject(new Error(`${t.status}`)))})};l(()=>(n(),()=>o.value()),[]);let p=async()=>{if(!confirm(`Forget the data of ${u.value.user}? This erases the titles, notes, tags and every other personal field of all your todos and of every version in their history, for good: it cannot be undone. The history keeps that a version existed, not what it said.`))return;let{data:t,error:m,response:h}=await a.DELETE("/api/me/data");if(!t)return d(m,h);e.value=t,n()};return s`<section class="records" aria-labelledby="forget-title">
    <h2 id="forget-title">Forget my data</h2>
    <p><a href="#/">Back to my todos</a></p>
    <div class="warning" role="note">
      <p><strong>Warning: this cannot be undone.</strong> It erases the content of all your todos and of every
      version in their history (titles, notes, tags, categories), and the copies kept for diagnosis.
      An administrator's legal hold can pause it until the hold is released.</p>
    </div>
    <button type="button" class="danger" onClick=${()=>{p()}}>Forget my data</button>
    ${e.value&&s`<${c} erasure=${e.value} />`}
  </section>`}export{g as default};
