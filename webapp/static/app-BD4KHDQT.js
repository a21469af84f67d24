import{B as x,C as H,D as W,E as Y,F as Z,G,a as F,b as f,c,e as h,f as S,g as d,h as C,i as V,j as U,k as q,l as B,o as n,p as $,q as N,r as D,s as p,t as L,u as E,v as k,w as O,x as I,y as w,z}from"./chunk-2KLZ6D2K.js";async function J(){let e=await fetch("/config.json",{headers:{Accept:"application/json"}});if(!e.ok)throw new Error(`the page's configuration did not load: ${e.status}`);return await e.json()}function M({problem:e,onDismiss:t}){return e?n`<div class="problem" role="alert">
    <strong class="problem-title">${e.title}</strong>
    <span class="problem-detail">${e.detail}</span>
    <button type="button" onClick=${t}>Dismiss</button>
  </div>`:null}var P={admin:()=>import("./admin-WNX3UH2V.js"),history:()=>import("./history-R6SM6XPX.js"),activity:()=>import("./activity-BARY72K7.js"),forget:()=>import("./forget-ACZEVSKP.js"),manage:()=>import("./manage-IC4QJB5I.js")};function Q(e){let t=e.replace(/^#\/?/,""),[o="",...a]=t.split("/");return o==="active"||o==="completed"?{view:"todos",filter:o,rest:""}:o==="todos"&&a.length>0?{view:"history",filter:"all",rest:a.join("/")}:o in P?{view:o,filter:"all",rest:a.join("/")}:{view:"todos",filter:"all",rest:""}}var A=h(Q(location.hash));addEventListener("hashchange",()=>{A.value=Q(location.hash)});function ee(){let e=c(null);return f(()=>{let t=e.current;t&&!t.open&&t.showModal()},[]),e}var ue=e=>e.split(",").map(t=>t.trim()).filter(Boolean);function ce(e,t){let o={},a=t.title.trim();a!==e.title&&(o.title=a);let l=ue(t.tags);l.join(",")!==(e.tags??[]).join(",")&&(o.tags=l.length?l:null);let u=t.due?t.due+"T00:00:00Z":null;(u??"").slice(0,10)!==(e.dueDate??"").slice(0,10)&&(o.dueDate=u);let r=t.notes;r!==(e.notes??"")&&(o.notes=r===""?null:r);let s=t.category.trim();return s&&s!==e.category&&(o.category=s),o}function te({todo:e,onClose:t}){let o=ee(),a=c(void 0),l=d({title:e.title,tags:(e.tags??[]).join(", "),due:e.dueDate?.slice(0,10)??"",notes:e.notes??"",category:e.category}),u=d(!1),r=d(null),s=g=>v=>{l.value={...l.value,[g]:v.currentTarget.value}},y=async g=>{g.preventDefault(),u.value=!0,r.value=null;let v=p.value;try{let b=await Y(e,ce(e,l.value));b!==null?(a.current=b,o.current?.close()):p.value!==v&&(r.value=p.value,p.value=v)}finally{u.value=!1}},m=l.value;return n`<dialog ref=${o} class="panel" aria-labelledby="panel-title" onClose=${()=>t(a.current)}>
    <form onSubmit=${y}>
      <h2 id="panel-title">Edit todo</h2>
      <${M} problem=${r.value} onDismiss=${()=>r.value=null} />
      <label>Title <input name="title" required maxLength="1024" value=${m.title} onInput=${s("title")} /></label>
      <label>Tags <input name="tags" placeholder="comma, separated" value=${m.tags} onInput=${s("tags")} /></label>
      <label>Due <input name="due" type="date" value=${m.due} onInput=${s("due")} /></label>
      <label>Notes <textarea name="notes" rows="4" value=${m.notes} onInput=${s("notes")}></textarea></label>
      <label>Move to category <input name="category" list="categories" value=${m.category} onInput=${s("category")} /></label>
      <p class="hint">Version ${e.version}, updated ${e.updatedAt.slice(0,16).replace("T"," ")} UTC. Id <code>${e.id}</code></p>
      <div class="buttons">
        <button type="submit" disabled=${u.value}>Save</button>
        <button type="button" onClick=${()=>o.current?.close()}>Close</button>
      </div>
    </form>
  </dialog>`}var de=["title","isCompleted","tags","dueDate","notes","category"];function X(e){return e==null||e===""?"—":Array.isArray(e)?e.join(", ")||"—":typeof e=="boolean"?e?"completed":"active":String(e)}function oe({conflict:e,more:t}){let o=ee(),a=de.filter(r=>r in e.mine),l=e.server,u=e.mine;return n`<dialog ref=${o} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
    onCancel=${r=>r.preventDefault()}>
    <h2 id="conflict-title">Changed since you loaded it</h2>
    <p id="conflict-detail">
      "${e.loaded.title}" is at version ${e.server.version} on the server; you loaded version ${e.loaded.version}.
      Keep yours (it is sent again over the server's version) or take the server's.
      ${t>0&&` ${t} more refused ${t===1?"change follows":"changes follow"}.`}
    </p>
    <table>
      <thead><tr><th scope="col">Field</th><th scope="col">Yours</th><th scope="col">Server's</th></tr></thead>
      <tbody>
        ${a.map(r=>n`<tr><th scope="row">${r}</th><td class="mine">${X(u[r])}</td><td class="theirs">${X(l[r])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${()=>{H(!0)}}>Keep mine</button>
      <button onClick=${()=>{H(!1)}}>Take theirs</button>
    </div>
  </dialog>`}var ae=S(()=>$.value.filter(e=>!e.isCompleted)),le=S(()=>$.value.filter(e=>e.isCompleted)),ne="Inbox";function pe(e){switch(e){case"active":return ae.value;case"completed":return le.value;default:return $.value}}function re({filter:e}){let t=d(null),o=r=>{t.value=null;let s=document.activeElement;r&&(!s||s===document.body||s.closest("dialog:not([open])"))&&document.querySelector(`li[data-id="${CSS.escape(r)}"] .details`)?.focus()},a=$.value,l=ae.value.length,u=pe(e);return n`
    <${me} />
    <${ve} />
    ${a.length>0&&n`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${l===0}
          onChange=${r=>{Z(r.currentTarget.checked)}} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${u.map(r=>n`<${$e} key=${r.id} todo=${r} onDetails=${()=>t.value=r} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${l}</strong> ${l===1?"item":"items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${e==="all"?"selected":""}>All</a></li>
          <li><a href="#/active" class=${e==="active"?"selected":""}>Active</a></li>
          <li><a href="#/completed" class=${e==="completed"?"selected":""}>Completed</a></li>
        </ul>
        ${le.value.length>0&&n`<button class="clear-completed" onClick=${()=>{G()}}>Clear completed</button>`}
      </footer>`}
    <${fe} />
    ${t.value&&n`<${te} todo=${t.value} onClose=${o} />`}
  `}function me(){let e=c(null),t=d("");return f(()=>e.current?.focus(),[]),n`<div class="create">
    <input ref=${e} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${async a=>{if(a.key!=="Enter"||a.isComposing)return;let l=a.currentTarget,u=l.value,r=u.trim();if(!r)return;l.value="",!await z(r,t.value.trim()||E.category.value||ne)&&l.value===""&&(l.value=u)}} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${E.category.value||ne}
      value=${t.value} onInput=${a=>t.value=a.currentTarget.value} />
    <datalist id="categories">${L.value.map(a=>n`<option value=${a} />`)}</datalist>
  </div>`}function ve(){let e=c(void 0),t=E,o=()=>{w()},a=l=>{t.q.value=l.currentTarget.value,clearTimeout(e.current),e.current=setTimeout(o,250)};return n`<div class="toolbar">
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
  </div>`}function fe(){let e=$.value.length;return N.value===null?D.value&&e===0?n`<p class="paging" role="status">Loading…</p>`:null:n`<p class="paging">
    <span>${e} loaded; the server has more.</span>
    <button class="more" disabled=${D.value} onClick=${()=>{w(!0)}}>More</button>
  </p>`}function ge(e){let t=e?.nextElementSibling??e?.previousElementSibling;return()=>{let o=document.activeElement;if(o&&o!==document.body&&!e?.contains(o))return;((t?.isConnected?t.querySelector(".toggle"):null)??document.querySelector(".new-todo"))?.focus()}}function $e({todo:e,onDetails:t}){let o=d(!1),a=d(e.title),l=c(null),u=c(null),r=c(null),s=c(!1),y=c(!1);f(()=>{o.value?u.current?.focus():y.current&&r.current?.focus(),y.current=!1},[o.value]);let m=()=>{a.value=e.title,s.current=!1,o.value=!0},g=async()=>{let i=ge(l.current),j=await W(e);return j&&i(),j},v=async()=>{if(s.current)return;s.current=!0;let i=a.value.trim();if(o.value=!1,i===""){await g()||b(a.value);return}i!==e.title&&!await x(e,{title:i})&&!O(e.id)&&b(a.value)},b=i=>{a.value=i,s.current=!1,o.value=!0},se=i=>{y.current=i.key==="Enter"||i.key==="Escape",i.key==="Enter"&&v(),i.key==="Escape"&&(s.current=!0,a.value=e.title,o.value=!1)},ie=[e.isCompleted?"completed":"",o.value?"editing":""].filter(Boolean).join(" "),K=e.dueDate?.slice(0,10);return n`<li ref=${l} class=${ie} data-id=${e.id}>
    <div class="view">
      <input ref=${r} class="toggle" type="checkbox" checked=${e.isCompleted} aria-label=${"Completed: "+e.title}
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
      onKeyDown=${se} onBlur=${()=>{v()}} />`}
  </li>`}var T=h(null),R=h({});function ye(){let e=T.value,t=C.value;if(!e)return null;let o=n`<a href="#/activity">My activity</a> <a href="#/forget">Forget my data</a>
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
      </nav>`}}function be(){let e=q.value;return n`<p class="cost" role="status">
    ${B.value||e&&`scope ${e.scope||"—"} · ${e.charge||"—"} RU`}
  </p>`}function he(){let e=A.value;return e.view==="todos"?n`<${re} filter=${e.filter} />`:n`<${we} key=${e.view} route=${e} />`}function we({route:e}){let t=R.value[e.view];return f(()=>{t||P[e.view]().then(o=>R.value={...R.value,[e.view]:o.default},o=>I(o))},[e.view,t]),t?n`<${t} route=${e} />`:n`<p role="status">Loading…</p>`}function Te(){let t=C.value.user!==""||T.value?.authMode==="single";return n`
    <${ye} />
    <main>
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${M} problem=${p.value} onDismiss=${()=>p.value=null} />
      ${t?n`<${he} />`:n`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${be} />
    </main>
    ${k.value[0]&&n`<${oe} conflict=${k.value[0]} more=${k.value.length-1} />`}
  `}async function Ce(){let e=document.getElementById("app");try{T.value=await J(),await U(T.value)}catch(t){I(t)}e.textContent="",F(n`<${Te} />`,e),(C.value.user!==""||T.value?.authMode==="single")&&await w()}Ce();
