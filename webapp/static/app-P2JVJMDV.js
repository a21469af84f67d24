import{A as W,C as x,D as H,E as Y,F as Z,G,H as J,a as F,b as f,c,e as h,f as S,g as d,h as C,i as V,j as U,k as q,l as B,o as n,p as $,q as N,r as D,s as p,t as L,u as E,v as k,w as O,x as I,y as w,z}from"./chunk-VQVAES3U.js";async function Q(){let e=await fetch("/config.json",{headers:{Accept:"application/json"}});if(!e.ok)throw new Error(`the page's configuration did not load: ${e.status}`);return await e.json()}function M({problem:e,onDismiss:t}){return e?n`<div class="problem" role="alert">
    <strong class="problem-title">${e.title}</strong>
    <span class="problem-detail">${e.detail}</span>
    <button type="button" onClick=${t}>Dismiss</button>
  </div>`:null}var P={admin:()=>import("./admin-NPYDUZIC.js"),history:()=>import("./history-PEKLX5BQ.js"),activity:()=>import("./activity-JWDZJX2F.js"),forget:()=>import("./forget-FYNKWXA4.js"),manage:()=>import("./manage-UA2EFJLP.js")};function X(e){let t=e.replace(/^#\/?/,""),[o="",...a]=t.split("/");return o==="active"||o==="completed"?{view:"todos",filter:o,rest:""}:o==="todos"&&a.length>0?{view:"history",filter:"all",rest:a.join("/")}:o in P?{view:o,filter:"all",rest:a.join("/")}:{view:"todos",filter:"all",rest:""}}var A=h(X(location.hash));addEventListener("hashchange",()=>{A.value=X(location.hash)});function te(){let e=c(null);return f(()=>{let t=e.current;t&&!t.open&&t.showModal()},[]),e}var ce=e=>e.split(",").map(t=>t.trim()).filter(Boolean);function de(e,t){let o={},a=t.title.trim();a!==e.title&&(o.title=a);let l=ce(t.tags);l.join(",")!==(e.tags??[]).join(",")&&(o.tags=l.length?l:null);let u=t.due?t.due+"T00:00:00Z":null;(u??"").slice(0,10)!==(e.dueDate??"").slice(0,10)&&(o.dueDate=u);let s=t.notes;s!==(e.notes??"")&&(o.notes=s===""?null:s);let r=t.category.trim();return r&&r!==e.category&&(o.category=r),o}function oe({todo:e,onClose:t}){let o=te(),a=c(void 0),l=d({title:e.title,tags:(e.tags??[]).join(", "),due:e.dueDate?.slice(0,10)??"",notes:e.notes??"",category:e.category}),u=d(!1),s=d(null),r=g=>v=>{l.value={...l.value,[g]:v.currentTarget.value}},y=async g=>{g.preventDefault(),u.value=!0,s.value=null;let v=p.value;try{let b=await Z(e,de(e,l.value));b!==null?(a.current=b,o.current?.close()):p.value!==v&&(s.value=p.value,p.value=v)}finally{u.value=!1}},m=l.value;return n`<dialog ref=${o} class="panel" aria-labelledby="panel-title" onClose=${()=>t(a.current)}>
    <form onSubmit=${y}>
      <h2 id="panel-title">Edit todo</h2>
      <${M} problem=${s.value} onDismiss=${()=>s.value=null} />
      <label>Title <input name="title" required maxLength="1024" value=${m.title} onInput=${r("title")} /></label>
      <label>Tags <input name="tags" placeholder="comma, separated" value=${m.tags} onInput=${r("tags")} /></label>
      <label>Due <input name="due" type="date" value=${m.due} onInput=${r("due")} /></label>
      <label>Notes <textarea name="notes" rows="4" value=${m.notes} onInput=${r("notes")}></textarea></label>
      <label>Move to category <input name="category" list="categories" value=${m.category} onInput=${r("category")} /></label>
      <p class="hint">Version ${e.version}, updated ${e.updatedAt.slice(0,16).replace("T"," ")} UTC. Id <code>${e.id}</code></p>
      <div class="buttons">
        <button type="submit" disabled=${u.value}>Save</button>
        <button type="button" onClick=${()=>o.current?.close()}>Close</button>
      </div>
    </form>
  </dialog>`}var pe=["title","isCompleted","tags","dueDate","notes","category"];function _(e){return e==null||e===""?"—":Array.isArray(e)?e.join(", ")||"—":typeof e=="boolean"?e?"completed":"active":String(e)}function ne({conflict:e,more:t}){let o=te(),a=pe.filter(s=>s in e.mine),l=e.server,u=e.mine;return n`<dialog ref=${o} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
    onCancel=${s=>s.preventDefault()}>
    <h2 id="conflict-title">Changed since you loaded it</h2>
    <p id="conflict-detail">
      "${e.loaded.title}" is at version ${e.server.version} on the server; you loaded version ${e.loaded.version}.
      Keep yours (it is sent again over the server's version) or take the server's.
      ${t>0&&` ${t} more refused ${t===1?"change follows":"changes follow"}.`}
    </p>
    <table>
      <thead><tr><th scope="col">Field</th><th scope="col">Yours</th><th scope="col">Server's</th></tr></thead>
      <tbody>
        ${a.map(s=>n`<tr><th scope="row">${s}</th><td class="mine">${_(u[s])}</td><td class="theirs">${_(l[s])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${()=>{H(!0)}}>Keep mine</button>
      <button onClick=${()=>{H(!1)}}>Take theirs</button>
    </div>
  </dialog>`}var le=S(()=>$.value.filter(e=>!e.isCompleted)),se=S(()=>$.value.filter(e=>e.isCompleted)),ae="Inbox";function me(e){switch(e){case"active":return le.value;case"completed":return se.value;default:return $.value}}function re({filter:e}){let t=d(null),o=s=>{t.value=null;let r=document.activeElement;s&&(!r||r===document.body||r.closest("dialog:not([open])"))&&document.querySelector(`li[data-id="${CSS.escape(s)}"] .details`)?.focus()},a=$.value,l=le.value.length,u=me(e);return n`
    <${ve} />
    <p class="added" role="status">${z.value}</p>
    <${fe} />
    ${a.length>0&&n`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${l===0}
          onChange=${s=>{G(s.currentTarget.checked)}} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${u.map(s=>n`<${ye} key=${s.id} todo=${s} onDetails=${()=>t.value=s} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${l}</strong> ${l===1?"item":"items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${e==="all"?"selected":""}>All</a></li>
          <li><a href="#/active" class=${e==="active"?"selected":""}>Active</a></li>
          <li><a href="#/completed" class=${e==="completed"?"selected":""}>Completed</a></li>
        </ul>
        ${se.value.length>0&&n`<button class="clear-completed" onClick=${()=>{J()}}>Clear completed</button>`}
      </footer>`}
    <${ge} />
    ${t.value&&n`<${oe} todo=${t.value} onClose=${o} />`}
  `}function ve(){let e=c(null),t=d("");return f(()=>e.current?.focus(),[]),n`<div class="create">
    <input ref=${e} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${async a=>{if(a.key!=="Enter"||a.isComposing)return;let l=a.currentTarget,u=l.value,s=u.trim();if(!s)return;l.value="",!await W(s,t.value.trim()||E.category.value||ae)&&l.value===""&&(l.value=u)}} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${E.category.value||ae}
      value=${t.value} onInput=${a=>t.value=a.currentTarget.value} />
    <datalist id="categories">${L.value.map(a=>n`<option value=${a} />`)}</datalist>
  </div>`}function fe(){let e=c(void 0),t=E,o=()=>{w()},a=l=>{t.q.value=l.currentTarget.value,clearTimeout(e.current),e.current=setTimeout(o,250)};return n`<div class="toolbar">
    <input type="search" class="search" aria-label="Search" placeholder="Search titles" value=${t.q.value} onInput=${a}
      onKeyDown=${l=>l.key==="Enter"&&(clearTimeout(e.current),o())} />
    <select aria-label="Category" value=${t.category.value}
      onChange=${l=>(t.category.value=l.currentTarget.value,o())}>
      <option value="">All categories</option>
      ${L.value.map(l=>n`<option value=${l}>${l}</option>`)}
    </select>
    <select aria-label="Sort by" value=${t.sort.value}
      onChange=${l=>(t.sort.value=l.currentTarget.value,o())}>
      <option value="">Store order</option>
      <option value="dueDate">Due date</option>
      <option value="createdAt">Created</option>
      <option value="updatedAt">Updated</option>
      <option value="title">Title</option>
    </select>
    <select aria-label="Order" value=${t.order.value} disabled=${!t.sort.value}
      onChange=${l=>(t.order.value=l.currentTarget.value,o())}>
      <option value="asc">Ascending</option>
      <option value="desc">Descending</option>
    </select>
  </div>`}function ge(){let e=$.value.length;return N.value===null?D.value&&e===0?n`<p class="paging" role="status">Loading…</p>`:null:n`<p class="paging">
    <span>${e} loaded; the server has more.</span>
    <button class="more" disabled=${D.value} onClick=${()=>{w(!0)}}>More</button>
  </p>`}function $e(e){let t=e?.nextElementSibling??e?.previousElementSibling;return()=>{let o=document.activeElement;if(o&&o!==document.body&&!e?.contains(o))return;((t?.isConnected?t.querySelector(".toggle"):null)??document.querySelector(".new-todo"))?.focus()}}function ye({todo:e,onDetails:t}){let o=d(!1),a=d(e.title),l=c(null),u=c(null),s=c(null),r=c(!1),y=c(!1);f(()=>{o.value?u.current?.focus():y.current&&s.current?.focus(),y.current=!1},[o.value]);let m=()=>{a.value=e.title,r.current=!1,o.value=!0},g=async()=>{let i=$e(l.current),j=await Y(e);return j&&i(),j},v=async()=>{if(r.current)return;r.current=!0;let i=a.value.trim();if(o.value=!1,i===""){await g()||b(a.value);return}i!==e.title&&!await x(e,{title:i})&&!O(e.id)&&b(a.value)},b=i=>{a.value=i,r.current=!1,o.value=!0},ie=i=>{y.current=i.key==="Enter"||i.key==="Escape",i.key==="Enter"&&v(),i.key==="Escape"&&(r.current=!0,a.value=e.title,o.value=!1)},ue=[e.isCompleted?"completed":"",o.value?"editing":""].filter(Boolean).join(" "),K=e.dueDate?.slice(0,10);return n`<li ref=${l} class=${ue} data-id=${e.id}>
    <div class="view">
      <input ref=${s} class="toggle" type="checkbox" checked=${e.isCompleted} aria-label=${"Completed: "+e.title}
        onChange=${i=>{x(e,{isCompleted:i.currentTarget.checked})}} />
      <label onDblClick=${m}>${e.title}</label>
      <span class="meta">
        <span class="category">${e.category}</span>
        ${K&&n` <span class="due">due ${K}</span>`}
        ${(e.tags??[]).map(i=>n` <span class="tag">#${i}</span>`)}
        <a class="history-link" href=${"#/todos/"+encodeURIComponent(e.id)} aria-label=${"History of "+e.title}>History</a>
      </span>
      <button class="details" aria-label=${"Details of "+e.title} onClick=${t}>⋯</button>
      <button class="destroy" aria-label=${"Delete "+e.title} onClick=${()=>{g()}}></button>
    </div>
    ${o.value&&n`<input ref=${u} class="edit" aria-label=${"Edit "+e.title} value=${a.value}
      onInput=${i=>a.value=i.currentTarget.value}
      onKeyDown=${ie} onBlur=${()=>{v()}} />`}
  </li>`}var T=h(null),R=h({});function be(){let e=T.value,t=C.value;if(!e)return null;let o=n`<a href="#/activity">My activity</a> <a href="#/forget">Forget my data</a>
    ${t.admin&&n` <a href="#/admin">All users (admin)</a> <a href="#/manage/audit">Manage (admin)</a>`}`;switch(e.authMode){case"dev":return n`<nav class="session" aria-label="Session">
        <form onSubmit=${a=>{a.preventDefault(),V(new FormData(a.currentTarget).get("user"))}}>
          <label>User <input name="user" value=${t.user} autocomplete="off" /></label>
          <button type="submit">Switch user</button>
        </form>
        ${o}
      </nav>`;case"single":return n`<nav class="session" aria-label="Session"><span>Signed in as <strong>${t.user}</strong></span> ${o}</nav>`;default:return n`<nav class="session" aria-label="Session">
        ${t.user?n`<span>Signed in as <strong>${t.user}</strong></span>
              ${o}
              <button type="button" class="link" onClick=${t.signOut}>Sign out</button>`:n`<button type="button" class="link" onClick=${t.signIn}>Sign in</button>`}
      </nav>`}}function he(){let e=q.value;return n`<p class="cost" role="status">
    ${B.value||e&&`scope ${e.scope||"—"} · ${e.charge||"—"} RU`}
  </p>`}function we(){let e=A.value;return e.view==="todos"?n`<${re} filter=${e.filter} />`:n`<${Te} key=${e.view} route=${e} />`}function Te({route:e}){let t=R.value[e.view];return f(()=>{t||P[e.view]().then(o=>R.value={...R.value,[e.view]:o.default},o=>I(o))},[e.view,t]),t?n`<${t} route=${e} />`:n`<p role="status">Loading…</p>`}function Ce(){let t=C.value.user!==""||T.value?.authMode==="single";return n`
    <${be} />
    <main>
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${M} problem=${p.value} onDismiss=${()=>p.value=null} />
      ${t?n`<${we} />`:n`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${he} />
    </main>
    ${k.value[0]&&n`<${ne} conflict=${k.value[0]} more=${k.value.length-1} />`}
  `}async function Ee(){let e=document.getElementById("app");try{T.value=await Q(),await U(T.value)}catch(t){I(t)}e.textContent="",F(n`<${Ce} />`,e),(C.value.user!==""||T.value?.authMode==="single")&&await w()}Ee();
