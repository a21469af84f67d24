import{a as E,b as V,d as P,e as D,f as G,g as L,h as j,i as I}from"./chunk-FPG27MTY.js";import{e as U}from"./chunk-ECGGXSTF.js";import{b as K,f,l as $,m as n,u as S}from"./chunk-Q3GGEZ74.js";function q(a,s){let t=a.split(/(\s+)/).filter(i=>i!==""),l=s.split(/(\s+)/).filter(i=>i!=="");if(t.length*l.length>2e3*2e3)return[{kind:"removed",text:a},{kind:"added",text:s}].filter(i=>i.text!=="");let r=Array.from({length:t.length+1},()=>new Uint32Array(l.length+1));for(let i=t.length-1;i>=0;i--)for(let u=l.length-1;u>=0;u--)r[i][u]=t[i]===l[u]?r[i+1][u+1]+1:Math.max(r[i+1][u],r[i][u+1]);let h=[],v=(i,u)=>{let w=h[h.length-1];w&&w.kind===i?w.text+=u:h.push({kind:i,text:u})},p=0,d=0;for(;p<t.length||d<l.length;)p<t.length&&d<l.length&&t[p]===l[d]?(v("same",t[p]),p++,d++):p<t.length&&(d===l.length||r[p+1][d]>=r[p][d+1])?v("removed",t[p++]):v("added",l[d++]);return h}var z=50,M="todoaudit.log.alert";async function C(a){let{data:s,error:t,response:l}=await a;if(typeof s!="string")throw Object.assign(new Error(`${l.url}: ${l.status}`),{error:t,response:l});return s}function J(a){return a==null||a===""?"(none)":Array.isArray(a)?a.join(", ")||"(none)":String(a)}var te=new Set(["id","type","userId","partitionKey","createdAt","version","updatedAt","lastOperation","updatedBy"]);function ne(a,s){return Object.keys({...a?.entity,...s.entity}).filter(t=>!te.has(t)&&JSON.stringify(a?.entity[t]??null)!==JSON.stringify(s.entity[t]??null))}function se({before:a,after:s}){return n`<span class="diff">${q(a,s).map(t=>t.kind==="same"?t.text:t.kind==="removed"?n`<del><span class="visually-hidden">removed: </span>${t.text}</del>`:n`<ins><span class="visually-hidden">added: </span>${t.text}</ins>`)}</span>`}function B({before:a,after:s}){let t=ne(a,s),l=new Set(s.erased??[]);return t.length===0&&l.size===0?n`<p>No field changed.</p>`:n`<dl class="changes">${t.filter(r=>!l.has(r)).map(r=>n`
    <dt>${r}</dt>
    <dd>${r==="title"||r==="notes"?n`<${se} before=${String(a?.entity[r]??"")} after=${String(s.entity[r]??"")} />`:n`<del><span class="visually-hidden">was: </span>${J(a?.entity[r])}</del> → <ins><span class="visually-hidden">now: </span>${J(s.entity[r])}</ins>`}</dd>`)}
    ${[...l].map(r=>n`<dt>${r}</dt><dd class="erased">erased (the value and its salt were removed; its digest still verifies)</dd>`)}
  </dl>`}function oe({route:a}){let s=decodeURIComponent(a.rest),t=f([]),l=f(!0),r=f(new Map),h=f(z),v=f(null),p=f(null),d=f(JSON.parse(localStorage.getItem(M)??"null")),i=f(null),u=f(null),w=f(""),A=async()=>{let e=[],o;do{let c=E(await C($.GET("/api/todos/{id}/history",{params:{path:{id:s},query:o?{pageSize:100,continuation:o}:{pageSize:100}},parseAs:"text"})));e.push(...c.items),l.value=c.complete!==!1,o=c.continuation??void 0}while(o);t.value=e,await F(e)},F=async e=>{let o=new I(localStorage),c=await P(await C($.GET("/api/log/key",{parseAs:"text"}))),y=o.pinnedKey(c.name);y===null&&o.pin(c);let b=y===null||y.trim()===c.text?c:await P(y);v.value=b,p.value=b===c?null:c;let R=async(k,ee)=>L(E(await C($.GET("/api/log/consistency",{params:{query:{from:k,to:ee}},parseAs:"text"})))),_=await D(await C($.GET("/api/log/checkpoint",{parseAs:"text"})),b),O=await o.observe(_,b,R,!0);O.ok||(localStorage.setItem(M,JSON.stringify(O.inconsistency)),d.value=O.inconsistency);let H=[];await Promise.all(e.map(async k=>{try{H.push(G(E(await C($.GET("/api/todos/{id}/history/proof",{params:{path:{id:s},query:{version:k.version}},parseAs:"text"})))))}catch{}})),r.value=new Map((await j(e,H,b)).map(k=>[k.version,k]))},T=e=>()=>{e().catch(o=>o.response?S(o.error??o,o.response):S({type:"about:blank",title:"The history could not be verified",status:0,detail:o.message}))};K(T(A),[s]);let W=e=>T(async()=>{if(!confirm(`Restore version ${e.version}? This adds a new version with the content of version ${e.version}. It erases nothing: every version stays in the history.`))return;let{error:o,response:c}=await $.POST("/api/todos/{id}/rollback",{params:{path:{id:s}},body:{version:e.version}});if(!c.ok)return S(o,c);w.value=`Version ${e.version} restored as a new version.`,await A()}),Q=e=>{e.preventDefault();let o=e.currentTarget.elements.namedItem("asof");if(!o.value)return;let c=new Date(o.value).toISOString();T(async()=>{let{data:y,error:b,response:R}=await $.GET("/api/todos/{id}",{params:{path:{id:s},query:{asOf:c}}});if(!y)return S(b,R);u.value={at:c,todo:y}})()},X=()=>{let e=p.value;!e||!confirm(`Trust the log's new key ${e.name} (fingerprint SHA-256 ${e.fingerprint}) in place of the one this browser pinned? Do so only if you know why the key changed.`)||(new I(localStorage).pin(e),T(A)())},Y=()=>{localStorage.removeItem(M),d.value=null},g=t.value,x=new Map(g.map(e=>[e.version,e])),N=g[g.length-1],Z=[...g].reverse().slice(0,h.value),m=i.value;return n`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">History of ${String(N?.entity.title??s)}</h2>
    <p><a href="#/">Back to my todos</a></p>
    ${d.value&&n`<div role="alert" class="inconsistency">
      <p><strong>The log is not consistent with what this browser saw before</strong> (a rollback or a fork): ${d.value.reason}</p>
      <p><label>Checkpoint seen before<br /><textarea readonly rows="5" cols="60">${d.value.seen}</textarea></label></p>
      <p><label>Checkpoint offered now<br /><textarea readonly rows="5" cols="60">${d.value.offered}</textarea></label></p>
      <button onClick=${Y}>Dismiss</button>
    </div>`}
    <${U} path="/api/todos/{id}/history/export" filters=${{}} name=${`history-${s}`} id=${s} />
    ${v.value&&n`<p class="key">Log key <code>${v.value.name}</code>, fingerprint SHA-256 <code class="fingerprint">${v.value.fingerprint}</code></p>`}
    ${p.value&&n`<div class="key-change" role="group" aria-label="The log's key changed">
      <p>The log now signs with another key (fingerprint <code>${p.value.fingerprint}</code>) than the one this browser pinned; versions are checked with the pinned key until you trust the new one.</p>
      <button onClick=${X}>Trust the new key</button></div>`}
    ${!l.value&&n`<p role="status">The history is not complete: some versions are missing (not audited yet, or lost).</p>`}
    ${w.value&&n`<p role="status">${w.value}</p>`}
    <form class="asof" onSubmit=${Q}>
      <label for="asof">View as it was at</label> <input id="asof" name="asof" type="datetime-local" step="1" />
      <button type="submit">View</button>
    </form>
    ${u.value&&n`<section class="asof-result" aria-label="As it was"><h3>As it was at ${u.value.at}</h3>
      <dl>${["title","notes","category","tags","dueDate","isCompleted","version"].map(e=>n`<dt>${e}</dt><dd>${J(u.value.todo[e])}</dd>`)}</dl></section>`}
    ${m&&x.get(m[0])&&x.get(m[1])&&n`<section class="compare" aria-label="Comparison">
      <h3>Version ${m[0]} compared with version ${m[1]}</h3>
      <p><label>From version <select value=${m[0]} onChange=${e=>i.value=[Number(e.target.value),m[1]]}>
        ${g.map(e=>n`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <label> to version <select value=${m[1]} onChange=${e=>i.value=[m[0],Number(e.target.value)]}>
        ${g.map(e=>n`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <button onClick=${()=>i.value=null}>Close</button></p>
      <${B} before=${x.get(m[0])} after=${x.get(m[1])} />
    </section>`}
    <ul class="versions" aria-label="Versions">
      ${Z.map(e=>{let o=r.value.get(e.version),c=o?.status??"Checking";return n`<li key=${e.version} class=${"version "+c.toLowerCase()}>
          <h3>Version ${e.version} <span class="status">${c}</span></h3>
          ${o?.reason&&n`<p class="reason">${o.reason}</p>`}
          <p>${e.operation} by ${e.actor} at <time datetime=${e.dateCreatedUtc}>${e.dateCreatedUtc}</time></p>
          <${B} before=${x.get(e.version-1)} after=${e} />
          <button onClick=${()=>i.value=[Math.max(1,e.version-1),e.version]}>Compare</button>
          ${e!==N&&n` <button disabled=${(e.erased??[]).some(y=>V.includes(y))} onClick=${W(e)}>Restore this version</button>`}
        </li>`})}
    </ul>
    ${g.length>h.value&&n`<button onClick=${()=>h.value+=z}>More versions (${g.length-h.value} older)</button>`}
  </section>`}export{oe as default};
