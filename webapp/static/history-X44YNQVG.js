import{a as E,b as L,d as I,e as j,f as q,g as B,h as U,i as J}from"./chunk-RMNAERRB.js";import{e as z}from"./chunk-VJQZ5XZL.js";import{b as G,f,l as g,n as s,v as x}from"./chunk-JBMN6QHN.js";function F(i,o){let t=i.split(/(\s+)/).filter(r=>r!==""),c=o.split(/(\s+)/).filter(r=>r!=="");if(t.length*c.length>2e3*2e3)return[{kind:"removed",text:i},{kind:"added",text:o}].filter(r=>r.text!=="");let m=Array.from({length:t.length+1},()=>new Uint32Array(c.length+1));for(let r=t.length-1;r>=0;r--)for(let u=c.length-1;u>=0;u--)m[r][u]=t[r]===c[u]?m[r+1][u+1]+1:Math.max(m[r+1][u],m[r][u+1]);let l=[],y=(r,u)=>{let w=l[l.length-1];w&&w.kind===r?w.text+=u:l.push({kind:r,text:u})},p=0,d=0;for(;p<t.length||d<c.length;)p<t.length&&d<c.length&&t[p]===c[d]?(y("same",t[p]),p++,d++):p<t.length&&(d===c.length||m[p+1][d]>=m[p][d+1])?y("removed",t[p++]):y("added",c[d++]);return l}var W=50,N="todoaudit.log.alert";async function C(i){let{data:o,error:t,response:c}=await i;if(typeof o!="string")throw Object.assign(new Error(`${c.url}: ${c.status}`),{error:t,response:c});return o}function D(i){return i==null||i===""?"(none)":Array.isArray(i)?i.join(", ")||"(none)":String(i)}var se=new Set(["id","type","userId","partitionKey","createdAt","version","updatedAt","lastOperation","updatedBy"]);function oe(i,o){return Object.keys({...i?.entity,...o.entity}).filter(t=>!se.has(t)&&JSON.stringify(i?.entity[t]??null)!==JSON.stringify(o.entity[t]??null))}function ae({before:i,after:o}){return s`<span class="diff">${F(i,o).map(t=>t.kind==="same"?t.text:t.kind==="removed"?s`<del><span class="visually-hidden">removed: </span>${t.text}</del>`:s`<ins><span class="visually-hidden">added: </span>${t.text}</ins>`)}</span>`}function Q({before:i,after:o,erasedOn:t}){let c=oe(i,o),m=new Set(o.erased??[]);return c.length===0&&m.size===0?s`<p>No field changed.</p>`:s`<dl class="changes">${c.filter(l=>!m.has(l)).map(l=>s`
    <dt>${l}</dt>
    <dd>${l==="title"||l==="notes"?s`<${ae} before=${String(i?.entity[l]??"")} after=${String(o.entity[l]??"")} />`:s`<del><span class="visually-hidden">was: </span>${D(i?.entity[l])}</del> → <ins><span class="visually-hidden">now: </span>${D(o.entity[l])}</ins>`}</dd>`)}
    ${[...m].map(l=>s`<dt>${l}</dt><dd class="erased">erased${t?` on ${new Date(t).toLocaleString()}`:""} (the value and its salt were removed; its digest still verifies)</dd>`)}
  </dl>`}function ie({route:i}){let o=decodeURIComponent(i.rest),t=f([]),c=f(!0),m=f(new Map),l=f(W),y=f(null),p=f(null),d=f(JSON.parse(localStorage.getItem(N)??"null")),r=f(null),u=f(null),w=f(""),O=f(null),R=async()=>{let e=[],a;do{let n=E(await C(g.GET("/api/todos/{id}/history",{params:{path:{id:o},query:a?{pageSize:100,form:2,continuation:a}:{pageSize:100,form:2}},parseAs:"text"})));e.push(...n.items),c.value=n.complete!==!1,a=n.continuation??void 0}while(a);if(t.value=e,e.some(n=>(n.erased??[]).length>0)){let{data:n}=await g.GET("/api/me/erasure");O.value=n?n.finishedAt??n.updatedAt??n.requestedAt??null:null}await X(e)},X=async e=>{let a=new J(localStorage),n=await I(await C(g.GET("/api/log/key",{parseAs:"text"}))),h=a.pinnedKey(n.name);h===null&&a.pin(n);let b=h===null||h.trim()===n.text?n:await I(h);y.value=b,p.value=b===n?null:n;let P=async(k,A)=>B(E(await C(g.GET("/api/log/consistency",{params:{query:{from:k,to:A}},parseAs:"text"})))),ne=await j(await C(g.GET("/api/log/checkpoint",{parseAs:"text"})),b),M=await a.observe(ne,b,P,!0);M.ok||(localStorage.setItem(N,JSON.stringify(M.inconsistency)),d.value=M.inconsistency);let K=[],V=new Map;await Promise.all(e.map(async k=>{try{let A=q(E(await C(g.GET("/api/todos/{id}/history/proof",{params:{path:{id:o},query:{version:k.version}},parseAs:"text"}))));K.push(A),V.set(A,k.version)}catch{}})),m.value=new Map((await U(e,K,b,V)).map(k=>[k.version,k]))},T=e=>()=>{e().catch(a=>a.response?x(a.error??a,a.response):x({type:"about:blank",title:"The history could not be verified",status:0,detail:a.message}))};G(T(R),[o]);let Y=e=>T(async()=>{if(!confirm(`Restore version ${e.version}? This adds a new version with the content of version ${e.version}. It erases nothing: every version stays in the history.`))return;let{error:a,response:n}=await g.POST("/api/todos/{id}/rollback",{params:{path:{id:o}},body:{version:e.version}});if(!n.ok)return x(a,n);w.value=`Version ${e.version} restored as a new version.`,await R()}),Z=e=>{e.preventDefault();let a=e.currentTarget.elements.namedItem("asof");if(!a.value)return;let n=new Date(a.value).toISOString();T(async()=>{let{data:h,error:b,response:P}=await g.GET("/api/todos/{id}",{params:{path:{id:o},query:{asOf:n}}});if(!h)return x(b,P);u.value={at:n,todo:h}})()},_=()=>{let e=p.value;!e||!confirm(`Trust the log's new key ${e.name} (fingerprint SHA-256 ${e.fingerprint}) in place of the one this browser pinned? Do so only if you know why the key changed.`)||(new J(localStorage).pin(e),T(R)())},ee=()=>{localStorage.removeItem(N),d.value=null},$=t.value,S=new Map($.map(e=>[e.version,e])),H=$[$.length-1],te=[...$].reverse().slice(0,l.value),v=r.value;return s`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">History of ${String(H?.entity.title??o)}</h2>
    <p><a href="#/">Back to my todos</a></p>
    ${d.value&&s`<div role="alert" class="inconsistency">
      <p><strong>The log is not consistent with what this browser saw before</strong> (a rollback or a fork): ${d.value.reason}</p>
      <p><label>Checkpoint seen before<br /><textarea readonly rows="5" cols="60">${d.value.seen}</textarea></label></p>
      <p><label>Checkpoint offered now<br /><textarea readonly rows="5" cols="60">${d.value.offered}</textarea></label></p>
      <button onClick=${ee}>Dismiss</button>
    </div>`}
    <${z} path="/api/todos/{id}/history/export" filters=${{}} name=${`history-${o}`} id=${o} />
    ${y.value&&s`<p class="key">Log key <code>${y.value.name}</code>, fingerprint SHA-256 <code class="fingerprint">${y.value.fingerprint}</code></p>`}
    ${p.value&&s`<div class="key-change" role="group" aria-label="The log's key changed">
      <p>The log now signs with another key (fingerprint <code>${p.value.fingerprint}</code>) than the one this browser pinned; versions are checked with the pinned key until you trust the new one.</p>
      <button onClick=${_}>Trust the new key</button></div>`}
    ${!c.value&&s`<p role="status">The history is not complete: some versions are missing (not audited yet, or lost).</p>`}
    ${w.value&&s`<p role="status">${w.value}</p>`}
    <form class="asof" onSubmit=${Z}>
      <label for="asof">View as it was at</label> <input id="asof" name="asof" type="datetime-local" step="1" />
      <button type="submit">View</button>
    </form>
    ${u.value&&s`<section class="asof-result" aria-label="As it was"><h3>As it was at ${u.value.at}</h3>
      <dl>${["title","notes","category","tags","dueDate","isCompleted","version"].map(e=>s`<dt>${e}</dt><dd>${D(u.value.todo[e])}</dd>`)}</dl></section>`}
    ${v&&S.get(v[0])&&S.get(v[1])&&s`<section class="compare" aria-label="Comparison">
      <h3>Version ${v[0]} compared with version ${v[1]}</h3>
      <p><label>From version <select value=${v[0]} onChange=${e=>r.value=[Number(e.target.value),v[1]]}>
        ${$.map(e=>s`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <label> to version <select value=${v[1]} onChange=${e=>r.value=[v[0],Number(e.target.value)]}>
        ${$.map(e=>s`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <button onClick=${()=>r.value=null}>Close</button></p>
      <${Q} before=${S.get(v[0])} after=${S.get(v[1])} erasedOn=${O.value} />
    </section>`}
    <ul class="versions" aria-label="Versions">
      ${te.map(e=>{let a=m.value.get(e.version),n=a?.status??"Checking";return s`<li key=${e.version} class=${"version "+n.toLowerCase()}>
          <h3>Version ${e.version} <span class="status">${n}</span></h3>
          ${a?.reason&&s`<p class="reason">${a.reason}</p>`}
          <p>${e.operation} by ${e.actor} at <time datetime=${e.dateCreatedUtc}>${e.dateCreatedUtc}</time></p>
          <${Q} before=${S.get(e.version-1)} after=${e} erasedOn=${O.value} />
          <button onClick=${()=>r.value=[Math.max(1,e.version-1),e.version]}>Compare</button>
          ${e!==H&&s` <button disabled=${(e.erased??[]).some(h=>L.includes(h))} onClick=${Y(e)}>Restore this version</button>`}
        </li>`})}
    </ul>
    ${$.length>l.value&&s`<button onClick=${()=>l.value+=W}>More versions (${$.length-l.value} older)</button>`}
  </section>`}export{ie as default};
