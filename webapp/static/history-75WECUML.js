import{a as A,b as V,d as P,e as D,f as G,g as L,h as j,i as I}from"./chunk-FPG27MTY.js";import{b as K,f,l as $,m as n,u as x}from"./chunk-XT2FC4KO.js";function U(o,a){let t=o.split(/(\s+)/).filter(i=>i!==""),l=a.split(/(\s+)/).filter(i=>i!=="");if(t.length*l.length>2e3*2e3)return[{kind:"removed",text:o},{kind:"added",text:a}].filter(i=>i.text!=="");let r=Array.from({length:t.length+1},()=>new Uint32Array(l.length+1));for(let i=t.length-1;i>=0;i--)for(let u=l.length-1;u>=0;u--)r[i][u]=t[i]===l[u]?r[i+1][u+1]+1:Math.max(r[i+1][u],r[i][u+1]);let v=[],h=(i,u)=>{let w=v[v.length-1];w&&w.kind===i?w.text+=u:v.push({kind:i,text:u})},p=0,d=0;for(;p<t.length||d<l.length;)p<t.length&&d<l.length&&t[p]===l[d]?(h("same",t[p]),p++,d++):p<t.length&&(d===l.length||r[p+1][d]>=r[p][d+1])?h("removed",t[p++]):h("added",l[d++]);return v}var q=50,M="todoaudit.log.alert";async function C(o){let{data:a,error:t,response:l}=await o;if(typeof a!="string")throw Object.assign(new Error(`${l.url}: ${l.status}`),{error:t,response:l});return a}function J(o){return o==null||o===""?"(none)":Array.isArray(o)?o.join(", ")||"(none)":String(o)}var ee=new Set(["id","type","userId","partitionKey","createdAt","version","updatedAt","lastOperation","updatedBy"]);function te(o,a){return Object.keys({...o?.entity,...a.entity}).filter(t=>!ee.has(t)&&JSON.stringify(o?.entity[t]??null)!==JSON.stringify(a.entity[t]??null))}function ne({before:o,after:a}){return n`<span class="diff">${U(o,a).map(t=>t.kind==="same"?t.text:t.kind==="removed"?n`<del><span class="visually-hidden">removed: </span>${t.text}</del>`:n`<ins><span class="visually-hidden">added: </span>${t.text}</ins>`)}</span>`}function z({before:o,after:a}){let t=te(o,a),l=new Set(a.erased??[]);return t.length===0&&l.size===0?n`<p>No field changed.</p>`:n`<dl class="changes">${t.filter(r=>!l.has(r)).map(r=>n`
    <dt>${r}</dt>
    <dd>${r==="title"||r==="notes"?n`<${ne} before=${String(o?.entity[r]??"")} after=${String(a.entity[r]??"")} />`:n`<del><span class="visually-hidden">was: </span>${J(o?.entity[r])}</del> → <ins><span class="visually-hidden">now: </span>${J(a.entity[r])}</ins>`}</dd>`)}
    ${[...l].map(r=>n`<dt>${r}</dt><dd class="erased">erased (the value and its salt were removed; its digest still verifies)</dd>`)}
  </dl>`}function se({route:o}){let a=decodeURIComponent(o.rest),t=f([]),l=f(!0),r=f(new Map),v=f(q),h=f(null),p=f(null),d=f(JSON.parse(localStorage.getItem(M)??"null")),i=f(null),u=f(null),w=f(""),E=async()=>{let e=[],s;do{let c=A(await C($.GET("/api/todos/{id}/history",{params:{path:{id:a},query:s?{pageSize:100,continuation:s}:{pageSize:100}},parseAs:"text"})));e.push(...c.items),l.value=c.complete!==!1,s=c.continuation??void 0}while(s);t.value=e,await B(e)},B=async e=>{let s=new I(localStorage),c=await P(await C($.GET("/api/log/key",{parseAs:"text"}))),y=s.pinnedKey(c.name);y===null&&s.pin(c);let b=y===null||y.trim()===c.text?c:await P(y);h.value=b,p.value=b===c?null:c;let R=async(k,_)=>L(A(await C($.GET("/api/log/consistency",{params:{query:{from:k,to:_}},parseAs:"text"})))),Z=await D(await C($.GET("/api/log/checkpoint",{parseAs:"text"})),b),O=await s.observe(Z,b,R,!0);O.ok||(localStorage.setItem(M,JSON.stringify(O.inconsistency)),d.value=O.inconsistency);let H=[];await Promise.all(e.map(async k=>{try{H.push(G(A(await C($.GET("/api/todos/{id}/history/proof",{params:{path:{id:a},query:{version:k.version}},parseAs:"text"})))))}catch{}})),r.value=new Map((await j(e,H,b)).map(k=>[k.version,k]))},T=e=>()=>{e().catch(s=>s.response?x(s.error??s,s.response):x({type:"about:blank",title:"The history could not be verified",status:0,detail:s.message}))};K(T(E),[a]);let F=e=>T(async()=>{if(!confirm(`Restore version ${e.version}? This adds a new version with the content of version ${e.version}. It erases nothing: every version stays in the history.`))return;let{error:s,response:c}=await $.POST("/api/todos/{id}/rollback",{params:{path:{id:a}},body:{version:e.version}});if(!c.ok)return x(s,c);w.value=`Version ${e.version} restored as a new version.`,await E()}),W=e=>{e.preventDefault();let s=e.currentTarget.elements.namedItem("asof");if(!s.value)return;let c=new Date(s.value).toISOString();T(async()=>{let{data:y,error:b,response:R}=await $.GET("/api/todos/{id}",{params:{path:{id:a},query:{asOf:c}}});if(!y)return x(b,R);u.value={at:c,todo:y}})()},Q=()=>{let e=p.value;!e||!confirm(`Trust the log's new key ${e.name} (fingerprint SHA-256 ${e.fingerprint}) in place of the one this browser pinned? Do so only if you know why the key changed.`)||(new I(localStorage).pin(e),T(E)())},X=()=>{localStorage.removeItem(M),d.value=null},g=t.value,S=new Map(g.map(e=>[e.version,e])),N=g[g.length-1],Y=[...g].reverse().slice(0,v.value),m=i.value;return n`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">History of ${String(N?.entity.title??a)}</h2>
    <p><a href="#/">Back to my todos</a></p>
    ${d.value&&n`<div role="alert" class="inconsistency">
      <p><strong>The log is not consistent with what this browser saw before</strong> (a rollback or a fork): ${d.value.reason}</p>
      <p><label>Checkpoint seen before<br /><textarea readonly rows="5" cols="60">${d.value.seen}</textarea></label></p>
      <p><label>Checkpoint offered now<br /><textarea readonly rows="5" cols="60">${d.value.offered}</textarea></label></p>
      <button onClick=${X}>Dismiss</button>
    </div>`}
    ${h.value&&n`<p class="key">Log key <code>${h.value.name}</code>, fingerprint SHA-256 <code class="fingerprint">${h.value.fingerprint}</code></p>`}
    ${p.value&&n`<div class="key-change" role="group" aria-label="The log's key changed">
      <p>The log now signs with another key (fingerprint <code>${p.value.fingerprint}</code>) than the one this browser pinned; versions are checked with the pinned key until you trust the new one.</p>
      <button onClick=${Q}>Trust the new key</button></div>`}
    ${!l.value&&n`<p role="status">The history is not complete: some versions are missing (not audited yet, or lost).</p>`}
    ${w.value&&n`<p role="status">${w.value}</p>`}
    <form class="asof" onSubmit=${W}>
      <label for="asof">View as it was at</label> <input id="asof" name="asof" type="datetime-local" step="1" />
      <button type="submit">View</button>
    </form>
    ${u.value&&n`<section class="asof-result" aria-label="As it was"><h3>As it was at ${u.value.at}</h3>
      <dl>${["title","notes","category","tags","dueDate","isCompleted","version"].map(e=>n`<dt>${e}</dt><dd>${J(u.value.todo[e])}</dd>`)}</dl></section>`}
    ${m&&S.get(m[0])&&S.get(m[1])&&n`<section class="compare" aria-label="Comparison">
      <h3>Version ${m[0]} compared with version ${m[1]}</h3>
      <p><label>From version <select value=${m[0]} onChange=${e=>i.value=[Number(e.target.value),m[1]]}>
        ${g.map(e=>n`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <label> to version <select value=${m[1]} onChange=${e=>i.value=[m[0],Number(e.target.value)]}>
        ${g.map(e=>n`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <button onClick=${()=>i.value=null}>Close</button></p>
      <${z} before=${S.get(m[0])} after=${S.get(m[1])} />
    </section>`}
    <ul class="versions" aria-label="Versions">
      ${Y.map(e=>{let s=r.value.get(e.version),c=s?.status??"Checking";return n`<li key=${e.version} class=${"version "+c.toLowerCase()}>
          <h3>Version ${e.version} <span class="status">${c}</span></h3>
          ${s?.reason&&n`<p class="reason">${s.reason}</p>`}
          <p>${e.operation} by ${e.actor} at <time datetime=${e.dateCreatedUtc}>${e.dateCreatedUtc}</time></p>
          <${z} before=${S.get(e.version-1)} after=${e} />
          <button onClick=${()=>i.value=[Math.max(1,e.version-1),e.version]}>Compare</button>
          ${e!==N&&n` <button disabled=${(e.erased??[]).some(y=>V.includes(y))} onClick=${F(e)}>Restore this version</button>`}
        </li>`})}
    </ul>
    ${g.length>v.value&&n`<button onClick=${()=>v.value+=q}>More versions (${g.length-v.value} older)</button>`}
  </section>`}export{se as default};
