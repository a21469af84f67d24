import{A as q,B as N,C as O,a as R,b as v,c as f,d as h,e as k,f as d,g as C,h as K,i as j,j as F,k as U,m as a,n as p,o as V,p as D,q as M,r as S,s as E,t as y,u as I,v as b,w as B,x as w,y as x,z as L}from"./chunk-Y656MRZW.js";async function W(){let e=await fetch("/config.json",{headers:{Accept:"application/json"}});if(!e.ok)throw new Error(`the page's configuration did not load: ${e.status}`);return await e.json()}var A={admin:()=>import("./admin-FUFC3UC2.js"),history:()=>import("./history-HS73NJJ6.js")};function Y(e){let t=e.replace(/^#\/?/,""),[o="",...n]=t.split("/");return o==="active"||o==="completed"?{view:"todos",filter:o,rest:""}:o==="todos"&&n.length>0?{view:"history",filter:"all",rest:n.join("/")}:o in A?{view:o,filter:"all",rest:n.join("/")}:{view:"todos",filter:"all",rest:""}}var H=h(Y(location.hash));addEventListener("hashchange",()=>{H.value=Y(location.hash)});function G(){let e=f(null);return v(()=>{let t=e.current;t&&!t.open&&t.showModal()},[]),e}var oe=e=>e.split(",").map(t=>t.trim()).filter(Boolean);function ne(e,t){let o={},n=t.title.trim();n!==e.title&&(o.title=n);let l=oe(t.tags);l.join(",")!==(e.tags??[]).join(",")&&(o.tags=l.length?l:null);let s=t.due?t.due+"T00:00:00Z":null;(s??"").slice(0,10)!==(e.dueDate??"").slice(0,10)&&(o.dueDate=s);let i=t.notes;return i!==(e.notes??"")&&(o.notes=i===""?null:i),o}function J({todo:e,onClose:t}){let o=G(),n=d({title:e.title,tags:(e.tags??[]).join(", "),due:e.dueDate?.slice(0,10)??"",notes:e.notes??"",category:e.category}),l=d(!1),s=m=>c=>{n.value={...n.value,[m]:c.currentTarget.value}},i=async m=>{m.preventDefault(),l.value=!0;try{let c=e,g=n.value.category.trim();if(g&&g!==e.category){if(!await q(e,g))return;c=p.value.find(r=>r.category===g&&r.title===e.title)??c}let $=ne(c,n.value);if(Object.keys($).length>0&&!await w(c,$))return;t()}finally{l.value=!1}},u=n.value;return a`<dialog ref=${o} class="panel" aria-labelledby="panel-title" onClose=${t}>
    <form onSubmit=${i}>
      <h2 id="panel-title">Edit todo</h2>
      <label>Title <input name="title" required maxLength="1024" value=${u.title} onInput=${s("title")} /></label>
      <label>Tags <input name="tags" placeholder="comma, separated" value=${u.tags} onInput=${s("tags")} /></label>
      <label>Due <input name="due" type="date" value=${u.due} onInput=${s("due")} /></label>
      <label>Notes <textarea name="notes" rows="4" value=${u.notes} onInput=${s("notes")}></textarea></label>
      <label>Move to category <input name="category" list="categories" value=${u.category} onInput=${s("category")} /></label>
      <p class="hint">Version ${e.version}, updated ${e.updatedAt.slice(0,16).replace("T"," ")} UTC. Id <code>${e.id}</code></p>
      <div class="buttons">
        <button type="submit" disabled=${l.value}>Save</button>
        <button type="button" onClick=${t}>Close</button>
      </div>
    </form>
  </dialog>`}var ae=["title","isCompleted","tags","dueDate","notes","category"];function Z(e){return e==null||e===""?"—":Array.isArray(e)?e.join(", ")||"—":typeof e=="boolean"?e?"completed":"active":String(e)}function Q({conflict:e}){let t=G(),o=ae.filter(s=>s in e.mine),n=e.server,l=e.mine;return a`<dialog ref=${t} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
    onCancel=${s=>s.preventDefault()}>
    <h2 id="conflict-title">Changed since you loaded it</h2>
    <p id="conflict-detail">
      "${e.loaded.title}" is at version ${e.server.version} on the server; you loaded version ${e.loaded.version}.
      Keep yours (it is sent again over the server's version) or take the server's.
    </p>
    <table>
      <thead><tr><th scope="col">Field</th><th scope="col">Yours</th><th scope="col">Server's</th></tr></thead>
      <tbody>
        ${o.map(s=>a`<tr><th scope="row">${s}</th><td class="mine">${Z(l[s])}</td><td class="theirs">${Z(n[s])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${()=>{x(!0)}}>Keep mine</button>
      <button onClick=${()=>{x(!1)}}>Take theirs</button>
    </div>
  </dialog>`}var _=k(()=>p.value.filter(e=>!e.isCompleted)),ee=k(()=>p.value.filter(e=>e.isCompleted)),X="Inbox";function le(e){switch(e){case"active":return _.value;case"completed":return ee.value;default:return p.value}}function te({filter:e}){let t=d(null),o=p.value,n=_.value.length,l=le(e);return a`
    <${se} />
    <${re} />
    ${o.length>0&&a`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${n===0}
          onChange=${s=>{N(s.currentTarget.checked)}} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${l.map(s=>a`<${ue} key=${s.id} todo=${s} onDetails=${()=>t.value=s} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${n}</strong> ${n===1?"item":"items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${e==="all"?"selected":""}>All</a></li>
          <li><a href="#/active" class=${e==="active"?"selected":""}>Active</a></li>
          <li><a href="#/completed" class=${e==="completed"?"selected":""}>Completed</a></li>
        </ul>
        ${ee.value.length>0&&a`<button class="clear-completed" onClick=${()=>{O()}}>Clear completed</button>`}
      </footer>`}
    <${ie} />
    ${t.value&&a`<${J} todo=${t.value} onClose=${()=>t.value=null} />`}
  `}function se(){let e=f(null),t=d("");return v(()=>e.current?.focus(),[]),a`<div class="create">
    <input ref=${e} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${async n=>{if(n.key!=="Enter"||n.isComposing)return;let l=n.currentTarget,s=l.value.trim();if(!s)return;l.value="",!await B(s,t.value.trim()||E.category.value||X)&&l.value===""&&(l.value=s)}} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${E.category.value||X}
      value=${t.value} onInput=${n=>t.value=n.currentTarget.value} />
    <datalist id="categories">${S.value.map(n=>a`<option value=${n} />`)}</datalist>
  </div>`}function re(){let e=f(void 0),t=E,o=()=>{b()},n=l=>{t.q.value=l.currentTarget.value,clearTimeout(e.current),e.current=setTimeout(o,250)};return a`<div class="toolbar">
    <input type="search" class="search" aria-label="Search" placeholder="Search titles" value=${t.q.value} onInput=${n}
      onKeyDown=${l=>l.key==="Enter"&&(clearTimeout(e.current),o())} />
    <select aria-label="Category" value=${t.category.value}
      onChange=${l=>(t.category.value=l.currentTarget.value,o())}>
      <option value="">All categories</option>
      ${S.value.map(l=>a`<option value=${l}>${l}</option>`)}
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
  </div>`}function ie(){let e=p.value.length;return V.value===null?D.value&&e===0?a`<p class="paging" role="status">Loading…</p>`:null:a`<p class="paging">
    <span>${e} loaded; the server has more.</span>
    <button class="more" disabled=${D.value} onClick=${()=>{b(!0)}}>More</button>
  </p>`}function ue({todo:e,onDetails:t}){let o=d(!1),n=d(e.title),l=f(null),s=f(!1);v(()=>{o.value&&l.current?.focus()},[o.value]);let i=()=>{n.value=e.title,s.current=!1,o.value=!0},u=async()=>{if(s.current)return;s.current=!0;let r=n.value.trim();if(o.value=!1,r===""){await L(e)||m(n.value);return}r!==e.title&&!await w(e,{title:r})&&!y.value&&m(n.value)},m=r=>{n.value=r,s.current=!1,o.value=!0},c=r=>{r.key==="Enter"&&u(),r.key==="Escape"&&(s.current=!0,n.value=e.title,o.value=!1)},g=[e.isCompleted?"completed":"",o.value?"editing":""].filter(Boolean).join(" "),$=e.dueDate?.slice(0,10);return a`<li class=${g} data-id=${e.id}>
    <div class="view">
      <input class="toggle" type="checkbox" checked=${e.isCompleted} aria-label=${"Completed: "+e.title}
        onChange=${r=>{w(e,{isCompleted:r.currentTarget.checked})}} />
      <label onDblClick=${i}>${e.title}</label>
      <span class="meta">
        <span class="category">${e.category}</span>
        ${$&&a` <span class="due">due ${$}</span>`}
        ${(e.tags??[]).map(r=>a` <span class="tag">#${r}</span>`)}
        <a class="history-link" href=${"#/todos/"+encodeURIComponent(e.id)}>History</a>
      </span>
      <button class="details" aria-label=${"Details of "+e.title} onClick=${t}>⋯</button>
      <button class="destroy" aria-label=${"Delete "+e.title} onClick=${()=>{L(e)}}></button>
    </div>
    ${o.value&&a`<input ref=${l} class="edit" aria-label=${"Edit "+e.title} value=${n.value}
      onInput=${r=>n.value=r.currentTarget.value}
      onKeyDown=${c} onBlur=${()=>{u()}} />`}
  </li>`}var T=h(null),P=h({});function ce(){let e=T.value,t=C.value;if(!e)return null;let o=t.admin&&a`<a href="#/admin">All users (admin)</a>`;switch(e.authMode){case"dev":return a`<nav class="session" aria-label="Session">
        <form onSubmit=${n=>{n.preventDefault(),K(new FormData(n.currentTarget).get("user"))}}>
          <label>User <input name="user" value=${t.user} autocomplete="off" /></label>
          <button type="submit">Switch user</button>
        </form>
        ${o}
      </nav>`;case"single":return a`<nav class="session" aria-label="Session"><span>Signed in as <strong>${t.user}</strong></span></nav>`;default:return a`<nav class="session" aria-label="Session">
        ${t.user?a`<span>Signed in as <strong>${t.user}</strong></span>
              ${o}
              <button type="button" class="link" onClick=${t.signOut}>Sign out</button>`:a`<button type="button" class="link" onClick=${t.signIn}>Sign in</button>`}
      </nav>`}}function de(){let e=M.value;return e?a`<div class="problem" role="alert">
    <strong class="problem-title">${e.title}</strong>
    <span class="problem-detail">${e.detail}</span>
    <button type="button" onClick=${()=>M.value=null}>Dismiss</button>
  </div>`:null}function pe(){let e=F.value;return a`<p class="cost" role="status">
    ${U.value||e&&`scope ${e.scope||"—"} · ${e.charge||"—"} RU`}
  </p>`}function ve(){let e=H.value;if(e.view==="todos")return a`<${te} filter=${e.filter} />`;let t=P.value[e.view];return v(()=>{t||A[e.view]().then(o=>P.value={...P.value,[e.view]:o.default},o=>I(o))},[e.view,t]),t?a`<${t} route=${e} />`:a`<p role="status">Loading…</p>`}function fe(){let t=C.value.user!==""||T.value?.authMode==="single";return a`
    <${ce} />
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${de} />
      ${t?a`<${ve} />`:a`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${pe} />
    ${y.value&&a`<${Q} conflict=${y.value} />`}
  `}async function me(){let e=document.getElementById("app");try{T.value=await W(),await j(T.value)}catch(t){I(t)}e.textContent="",R(a`<${fe} />`,e),(C.value.user!==""||T.value?.authMode==="single")&&await b()}me();
