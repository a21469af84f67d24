import{a as E,b as B,d as I,e as z,f as F,g as W,h as Q,i as J}from"./chunk-RMNAERRB.js";import{e as X}from"./chunk-46BDX5KF.js";import{B as q,b as L,c as U,d as j,g as f,m as y,o,x}from"./chunk-VQVAES3U.js";function Y(t,i){let n=t.split(/(\s+)/).filter(r=>r!==""),c=i.split(/(\s+)/).filter(r=>r!=="");if(n.length*c.length>2e3*2e3)return[{kind:"removed",text:t},{kind:"added",text:i}].filter(r=>r.text!=="");let p=Array.from({length:n.length+1},()=>new Uint32Array(c.length+1));for(let r=n.length-1;r>=0;r--)for(let d=c.length-1;d>=0;d--)p[r][d]=n[r]===c[d]?p[r+1][d+1]+1:Math.max(p[r+1][d],p[r][d+1]);let l=[],g=(r,d)=>{let w=l[l.length-1];w&&w.kind===r?w.text+=d:l.push({kind:r,text:d})},m=0,u=0;for(;m<n.length||u<c.length;)m<n.length&&u<c.length&&n[m]===c[u]?(g("same",n[m]),m++,u++):m<n.length&&(u===c.length||p[m+1][u]>=p[m][u+1])?g("removed",n[m++]):g("added",c[u++]);return l}var Z=50,N="todoaudit.log.alert";async function C(t){let{data:i,error:n,response:c}=await t;if(typeof i!="string")throw Object.assign(new Error(`${c.url}: ${c.status}`),{error:n,response:c});return i}function H(t){return t==null||t===""?"(none)":Array.isArray(t)?t.join(", ")||"(none)":String(t)}var ie=new Set(["id","type","userId","partitionKey","createdAt","version","updatedAt","lastOperation","updatedBy"]);function le(t,i){return Object.keys({...t?.entity,...i.entity}).filter(n=>!ie.has(n)&&JSON.stringify(t?.entity[n]??null)!==JSON.stringify(i.entity[n]??null))}function ce({before:t,after:i}){return o`<span class="diff">${Y(t,i).map(n=>n.kind==="same"?n.text:n.kind==="removed"?o`<del><span class="visually-hidden">removed: </span>${n.text}</del>`:o`<ins><span class="visually-hidden">added: </span>${n.text}</ins>`)}</span>`}function _({before:t,after:i,erasedOn:n}){let c=le(t,i),p=new Set(i.erased??[]);return c.length===0&&p.size===0?o`<p>No field changed.</p>`:o`<dl class="changes">${c.filter(l=>!p.has(l)).map(l=>o`
    <dt>${l}</dt>
    <dd>${l==="title"||l==="notes"?o`<${ce} before=${String(t?.entity[l]??"")} after=${String(i.entity[l]??"")} />`:o`<del><span class="visually-hidden">was: </span>${H(t?.entity[l])}</del> → <ins><span class="visually-hidden">now: </span>${H(i.entity[l])}</ins>`}</dd>`)}
    ${[...p].map(l=>o`<dt>${l}</dt><dd class="erased">erased${n?` on ${new Date(n).toLocaleString()}`:""} (the value and its salt were removed; its digest still verifies)</dd>`)}
  </dl>`}function ue({route:t}){let i=decodeURIComponent(t.rest);return o`<${de} key=${i} id=${i} />`}function de({id:t}){let i=f([]),n=f(!0),c=f(new Map),p=f(!1),l=f(Z),g=f(null),m=f(null),u=f(JSON.parse(localStorage.getItem(N)??"null")),r=f(null),d=f(null),w=f(""),O=f(null),R=async()=>{let e=[],a;do{let s=E(await C(y.GET("/api/todos/{id}/history",{params:{path:{id:t},query:a?{pageSize:100,form:2,continuation:a}:{pageSize:100,form:2}},parseAs:"text"})));e.push(...s.items),n.value=s.complete!==!1,a=s.continuation??void 0}while(a);if(j(()=>{i.value=e,c.value=new Map}),e.some(s=>(s.erased??[]).length>0)){let{data:s}=await y.GET("/api/me/erasure");O.value=s?s.finishedAt??s.updatedAt??s.requestedAt??null:null}try{p.value=!1,await ee(e)}catch(s){throw p.value=!0,s}},ee=async e=>{let a=new J(localStorage),s=await I(await C(y.GET("/api/log/key",{parseAs:"text"}))),h=a.pinnedKey(s.name);h===null&&a.pin(s);let b=h===null||h.trim()===s.text?s:await I(h);g.value=b,m.value=b===s?null:s;let P=async(k,A)=>W(E(await C(y.GET("/api/log/consistency",{params:{query:{from:k,to:A}},parseAs:"text"})))),re=await z(await C(y.GET("/api/log/checkpoint",{parseAs:"text"})),b),M=await a.observe(re,b,P,!0);M.ok||(localStorage.setItem(N,JSON.stringify(M.inconsistency)),u.value=M.inconsistency);let V=[],G=new Map;await Promise.all(e.map(async k=>{try{let A=F(E(await C(y.GET("/api/todos/{id}/history/proof",{params:{path:{id:t},query:{version:k.version}},parseAs:"text"}))));V.push(A),G.set(A,k.version)}catch{}})),c.value=new Map((await Q(e,V,b,G)).map(k=>[k.version,k]))},D=U(!0),T=e=>()=>{e().catch(a=>{D.current&&(a.response?x(a.error??a,a.response):x({type:"about:blank",title:"The history could not be verified",status:0,detail:a.message}))})};L(()=>(T(R)(),()=>{D.current=!1}),[]);let te=e=>T(async()=>{if(!confirm(`Restore version ${e.version}? This adds a new version with the content of version ${e.version}. It erases nothing: every version stays in the history.`))return;let{data:a,error:s,response:h}=await y.POST("/api/todos/{id}/rollback",{params:{path:{id:t}},body:{version:e.version}});if(!a)return x(s,h);q(a,h),w.value=`Version ${e.version} restored as a new version.`,await R()}),ne=e=>{e.preventDefault();let a=e.currentTarget.elements.namedItem("asof");if(!a.value)return;let s=new Date(a.value).toISOString();T(async()=>{let{data:h,error:b,response:P}=await y.GET("/api/todos/{id}",{params:{path:{id:t},query:{asOf:s}}});if(!h)return x(b,P);d.value={at:s,todo:h}})()},se=()=>{let e=m.value;!e||!confirm(`Trust the log's new key ${e.name} (fingerprint SHA-256 ${e.fingerprint}) in place of the one this browser pinned? Do so only if you know why the key changed.`)||(new J(localStorage).pin(e),T(R)())},oe=()=>{localStorage.removeItem(N),u.value=null},$=i.value,S=new Map($.map(e=>[e.version,e])),K=$[$.length-1],ae=[...$].reverse().slice(0,l.value),v=r.value;return o`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">History of ${String(K?.entity.title??t)}</h2>
    <p><a href="#/">Back to my todos</a></p>
    ${u.value&&o`<div role="alert" class="inconsistency">
      <p><strong>The log is not consistent with what this browser saw before</strong> (a rollback or a fork): ${u.value.reason}</p>
      <p><label>Checkpoint seen before<br /><textarea readonly rows="5" cols="60">${u.value.seen}</textarea></label></p>
      <p><label>Checkpoint offered now<br /><textarea readonly rows="5" cols="60">${u.value.offered}</textarea></label></p>
      <button onClick=${oe}>Dismiss</button>
    </div>`}
    <${X} path="/api/todos/{id}/history/export" filters=${{}} name=${`history-${t}`} id=${t} />
    ${g.value&&o`<p class="key">Log key <code>${g.value.name}</code>, fingerprint SHA-256 <code class="fingerprint">${g.value.fingerprint}</code></p>`}
    ${m.value&&o`<div class="key-change" role="group" aria-label="The log's key changed">
      <p>The log now signs with another key (fingerprint <code>${m.value.fingerprint}</code>) than the one this browser pinned; versions are checked with the pinned key until you trust the new one.</p>
      <button onClick=${se}>Trust the new key</button></div>`}
    ${!n.value&&o`<p role="status">The history is not complete: some versions are missing (not audited yet, or lost).</p>`}
    ${w.value&&o`<p role="status">${w.value}</p>`}
    <form class="asof" onSubmit=${ne}>
      <label for="asof">View as it was at</label> <input id="asof" name="asof" type="datetime-local" step="1" />
      <button type="submit">View</button>
    </form>
    ${d.value&&o`<section class="asof-result" aria-label="As it was"><h3>As it was at ${d.value.at}</h3>
      <dl>${["title","notes","category","tags","dueDate","isCompleted","version"].map(e=>o`<dt>${e}</dt><dd>${H(d.value.todo[e])}</dd>`)}</dl></section>`}
    ${v&&S.get(v[0])&&S.get(v[1])&&o`<section class="compare" aria-label="Comparison">
      <h3>Version ${v[0]} compared with version ${v[1]}</h3>
      <p><label>From version <select value=${v[0]} onChange=${e=>r.value=[Number(e.target.value),v[1]]}>
        ${$.map(e=>o`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <label> to version <select value=${v[1]} onChange=${e=>r.value=[v[0],Number(e.target.value)]}>
        ${$.map(e=>o`<option value=${e.version}>${e.version}</option>`)}</select></label>
      <button onClick=${()=>r.value=null}>Close</button></p>
      <${_} before=${S.get(v[0])} after=${S.get(v[1])} erasedOn=${O.value} />
    </section>`}
    <ul class="versions" aria-label="Versions">
      ${ae.map(e=>{let a=c.value.get(e.version),s=a?.status??(p.value?"Unchecked":"Checking");return o`<li key=${e.version} class=${"version "+s.toLowerCase()}>
          <h3>Version ${e.version} <span class="status">${s}</span></h3>
          ${a?.reason&&o`<p class="reason">${a.reason}</p>`}
          <p>${e.operation} by ${e.actor} at <time datetime=${e.dateCreatedUtc}>${e.dateCreatedUtc}</time></p>
          <${_} before=${S.get(e.version-1)} after=${e} erasedOn=${O.value} />
          <button onClick=${()=>r.value=[Math.max(1,e.version-1),e.version]}>Compare</button>
          ${e!==K&&o` <button disabled=${(e.erased??[]).some(h=>B.includes(h))} onClick=${te(e)}>Restore this version</button>`}
        </li>`})}
    </ul>
    ${$.length>l.value&&o`<button onClick=${()=>l.value+=Z}>More versions (${$.length-l.value} older)</button>`}
  </section>`}export{ue as default};
