import{a as A,b as V,d as I,e as G,f as L,g as j,h as q,i as M}from"./chunk-A4HPFFN2.js";import{e as U}from"./chunk-VEYWH5ZG.js";import{b as K,f,l as g,m as s,u as x}from"./chunk-KYXGQL4K.js";function z(i,o){let t=i.split(/(\s+)/).filter(r=>r!==""),c=o.split(/(\s+)/).filter(r=>r!=="");if(t.length*c.length>2e3*2e3)return[{kind:"removed",text:i},{kind:"added",text:o}].filter(r=>r.text!=="");let m=Array.from({length:t.length+1},()=>new Uint32Array(c.length+1));for(let r=t.length-1;r>=0;r--)for(let u=c.length-1;u>=0;u--)m[r][u]=t[r]===c[u]?m[r+1][u+1]+1:Math.max(m[r+1][u],m[r][u+1]);let l=[],y=(r,u)=>{let w=l[l.length-1];w&&w.kind===r?w.text+=u:l.push({kind:r,text:u})},p=0,d=0;for(;p<t.length||d<c.length;)p<t.length&&d<c.length&&t[p]===c[d]?(y("same",t[p]),p++,d++):p<t.length&&(d===c.length||m[p+1][d]>=m[p][d+1])?y("removed",t[p++]):y("added",c[d++]);return l}var B=50,J="todoaudit.log.alert";async function C(i){let{data:o,error:t,response:c}=await i;if(typeof o!="string")throw Object.assign(new Error(`${c.url}: ${c.status}`),{error:t,response:c});return o}function N(i){return i==null||i===""?"(none)":Array.isArray(i)?i.join(", ")||"(none)":String(i)}var ne=new Set(["id","type","userId","partitionKey","createdAt","version","updatedAt","lastOperation","updatedBy"]);function se(i,o){return Object.keys({...i?.entity,...o.entity}).filter(t=>!ne.has(t)&&JSON.stringify(i?.entity[t]??null)!==JSON.stringify(o.entity[t]??null))}function oe({before:i,after:o}){return s`<span class="diff">${z(i,o).map(t=>t.kind==="same"?t.text:t.kind==="removed"?s`<del><span class="visually-hidden">removed: </span>${t.text}</del>`:s`<ins><span class="visually-hidden">added: </span>${t.text}</ins>`)}</span>`}function F({before:i,after:o,erasedOn:t}){let c=se(i,o),m=new Set(o.erased??[]);return c.length===0&&m.size===0?s`<p>No field changed.</p>`:s`<dl class="changes">${c.filter(l=>!m.has(l)).map(l=>s`
    <dt>${l}</dt>
    <dd>${l==="title"||l==="notes"?s`<${oe} before=${String(i?.entity[l]??"")} after=${String(o.entity[l]??"")} />`:s`<del><span class="visually-hidden">was: </span>${N(i?.entity[l])}</del> → <ins><span class="visually-hidden">now: </span>${N(o.entity[l])}</ins>`}</dd>`)}
    ${[...m].map(l=>s`<dt>${l}</dt><dd class="erased">erased${t?` on ${new Date(t).toLocaleString()}`:""} (the value and its salt were removed; its digest still verifies)</dd>`)}
  </dl>`}function ae({route:i}){let o=decodeURIComponent(i.rest),t=f([]),c=f(!0),m=f(new Map),l=f(B),y=f(null),p=f(null),d=f(JSON.parse(localStorage.getItem(J)??"null")),r=f(null),u=f(null),w=f(""),E=f(null),O=async()=>{let e=[],a;do{let n=A(await C(g.GET("/api/todos/{id}/history",{params:{path:{id:o},query:a?{pageSize:100,continuation:a}:{pageSize:100}},parseAs:"text"})));e.push(...n.items),c.value=n.complete!==!1,a=n.continuation??void 0}while(a);if(t.value=e,e.some(n=>(n.erased??[]).length>0)){let{data:n}=await g.GET("/api/me/erasure");E.value=n?n.finishedAt??n.updatedAt??n.requestedAt??null:null}await W(e)},W=async e=>{let a=new M(localStorage),n=await I(await C(g.GET("/api/log/key",{parseAs:"text"}))),v=a.pinnedKey(n.name);v===null&&a.pin(n);let b=v===null||v.trim()===n.text?n:await I(v);y.value=b,p.value=b===n?null:n;let R=async(k,te)=>j(A(await C(g.GET("/api/log/consistency",{params:{query:{from:k,to:te}},parseAs:"text"})))),ee=await G(await C(g.GET("/api/log/checkpoint",{parseAs:"text"})),b),P=await a.observe(ee,b,R,!0);P.ok||(localStorage.setItem(J,JSON.stringify(P.inconsistency)),d.value=P.inconsistency);let H=[];await Promise.all(e.map(async k=>{try{H.push(L(A(await C(g.GET("/api/todos/{id}/history/proof",{params:{path:{id:o},query:{version:k.version}},parseAs:"text"})))))}catch{}})),m.value=new Map((await q(e,H,b)).map(k=>[k.version,k]))},T=e=>()=>{e().catch(a=>a.response?x(a.error??a,a.response):x({type:"about:blank",title:"The history could not be verified",status:0,detail:a.message}))};K(T(O),[o]);let Q=e=>T(async()=>{if(!confirm(`Restore version ${e.version}? This adds a new version with the content of version ${e.version}. It erases nothing: every version stays in the history.`))return;let{error:a,response:n}=await g.POST("/api/todos/{id}/rollback",{params:{path:{id:o}},body:{version:e.version}});if(!n.ok)return x(a,n);w.value=`Version ${e.version} restored as a new version.`,await O()}),X=e=>{e.preventDefault();let a=e.currentTarget.elements.namedItem("asof");if(!a.value)return;let n=new Date(a.value).toISOString();T(async()=>{let{data:v,error:b,response:R}=await g.GET("/api/todos/{id}",{params:{path:{id:o},query:{asOf:n}}});if(!v)return x(b,R);u.value={at:n,todo:v}})()},Y=()=>{let e=p.value;!e||!confirm(`Trust the log's new key ${e.name} (fingerprint SHA-256 ${e.fingerprint}) in place of the one this browser pinned? Do so only if you know why the key changed.`)||(new M(localStorage).pin(e),T(O)())},Z=()=>{localStorage.removeItem(J),d.value=null},$=t.value,S=new Map($.map(e=>[e.version,e])),D=$[$.length-1],_=[...$].reverse().slice(0,l.value),h=r.value;return s`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">History of ${String(D?.entity.title??o)}</h2>
    <p><a href="#/">Back to my todos</a></p>
    ${d.value&&s`<div role="alert" class="inconsistency">
      <p><strong>The log is not consistent with what this browser saw before</strong> (a rollback or a fork): ${d.value.reason}</p>
      <p><label>Checkpoint seen before<br /><textarea readonly rows="5" cols="60">${d.value.seen}</textarea></label></p>
      <p><label>Checkpoint offered now<br /><textarea readonly rows="5" cols="60">${d.value.offered}</textarea></label></p>
      <button onClick=${Z}>Dismiss</button>
    </div>`}
    <${U} path="/api/todos/{id}/history/export" filters=${{}} name=${`history-${o}`} id=${o} />
    ${y.value&&s`<p class="key">Log key <code>${y.value.name}</code>, fingerprint SHA-256 <code class="fingerprint">${y.value.fingerprint}</code></p>`}
    ${p.value&&s`<div class="key-change" role="group" aria-label="The log's key changed">
      <p>The log now signs with another key (fingerprint <code>${p.value.fingerprint}</code>) than the one this browser pinned; versions are checked with the pinned key until you trust the new one.</p>
      <button onClick=${Y}>Trust the new key</button></div>`}
    ${!c.value&&s`<p role="status">The history is not complete: some versions are missing (not audited yet, or lost).</p>`}
    ${w.value&&s`<p role="status">${w.value}</p>`}
    <form class="asof" onSubmit=${X}>
      <label for="asof">View as it was at</label> <input id="asof" name="asof" type="datetime-local" step="1" />
      <button type="submit">View</button>
    </form>
    ${u.value&&s`<section class="asof-result" aria-label="As it was"><h3>As it was at ${u.value.at}</h3>
      <dl>${["title","notes","category","tags","dueDate","isCompleted","version"].map(e=>s`<dt>${e}</dt><dd>${N(u.value.todo[e])}</dd>`)}</dl></section>`}
    ${h&&S.get(h[0])&&S.get(h[1])&&s`<section class="compare" aria-label="Comparison">
      <h3>Version ${h[0]} compared with version ${h[1]}</h3>
      <p><label>From version <select value=${h[0]} onChange=${e=>r.value=[Number(e.target.value),h[1]]}>
        ${$.map(e=>s`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <label> to version <select value=${h[1]} onChange=${e=>r.value=[h[0],Number(e.target.value)]}>
        ${$.map(e=>s`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <button onClick=${()=>r.value=null}>Close</button></p>
      <${F} before=${S.get(h[0])} after=${S.get(h[1])} erasedOn=${E.value} />
    </section>`}
    <ul class="versions" aria-label="Versions">
      ${_.map(e=>{let a=m.value.get(e.version),n=a?.status??"Checking";return s`<li key=${e.version} class=${"version "+n.toLowerCase()}>
          <h3>Version ${e.version} <span class="status">${n}</span></h3>
          ${a?.reason&&s`<p class="reason">${a.reason}</p>`}
          <p>${e.operation} by ${e.actor} at <time datetime=${e.dateCreatedUtc}>${e.dateCreatedUtc}</time></p>
          <${F} before=${S.get(e.version-1)} after=${e} erasedOn=${E.value} />
          <button onClick=${()=>r.value=[Math.max(1,e.version-1),e.version]}>Compare</button>
          ${e!==D&&s` <button disabled=${(e.erased??[]).some(v=>V.includes(v))} onClick=${Q(e)}>Restore this version</button>`}
        </li>`})}
    </ul>
    ${$.length>l.value&&s`<button onClick=${()=>l.value+=B}>More versions (${$.length-l.value} older)</button>`}
  </section>`}export{ae as default};
