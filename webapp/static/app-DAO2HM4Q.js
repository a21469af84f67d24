import{A as I,B as x,C as L,D as N,E as O,F as z,a as K,b as v,c as m,e as h,f as k,g as c,h as T,i as j,j as F,k as V,l as U,o as a,p as g,q as B,r as D,s as d,t as M,u as C,v as b,w as S,x as y,y as q}from"./chunk-E2N5VX6O.js";async function W(){let e=await fetch("/config.json",{headers:{Accept:"application/json"}});if(!e.ok)throw new Error(`the page's configuration did not load: ${e.status}`);return await e.json()}function E({problem:e,onDismiss:t}){return e?a`<div class="problem" role="alert">
    <strong class="problem-title">${e.title}</strong>
    <span class="problem-detail">${e.detail}</span>
    <button type="button" onClick=${t}>Dismiss</button>
  </div>`:null}var P={admin:()=>import("./admin-B7OLEIOL.js"),history:()=>import("./history-NJZ7BSUN.js"),activity:()=>import("./activity-23MKVBT3.js"),forget:()=>import("./forget-WI36PVEW.js"),manage:()=>import("./manage-T7JOQ5VG.js")};function Y(e){let t=e.replace(/^#\/?/,""),[o="",...n]=t.split("/");return o==="active"||o==="completed"?{view:"todos",filter:o,rest:""}:o==="todos"&&n.length>0?{view:"history",filter:"all",rest:n.join("/")}:o in P?{view:o,filter:"all",rest:n.join("/")}:{view:"todos",filter:"all",rest:""}}var A=h(Y(location.hash));addEventListener("hashchange",()=>{A.value=Y(location.hash)});function J(){let e=m(null);return v(()=>{let t=e.current;t&&!t.open&&t.showModal()},[]),e}var ae=e=>e.split(",").map(t=>t.trim()).filter(Boolean);function ne(e,t){let o={},n=t.title.trim();n!==e.title&&(o.title=n);let l=ae(t.tags);l.join(",")!==(e.tags??[]).join(",")&&(o.tags=l.length?l:null);let r=t.due?t.due+"T00:00:00Z":null;(r??"").slice(0,10)!==(e.dueDate??"").slice(0,10)&&(o.dueDate=r);let s=t.notes;s!==(e.notes??"")&&(o.notes=s===""?null:s);let u=t.category.trim();return u&&u!==e.category&&(o.category=u),o}function Q({todo:e,onClose:t}){let o=J(),n=c({title:e.title,tags:(e.tags??[]).join(", "),due:e.dueDate?.slice(0,10)??"",notes:e.notes??"",category:e.category}),l=c(!1),r=c(null),s=$=>f=>{n.value={...n.value,[$]:f.currentTarget.value}},u=async $=>{$.preventDefault(),l.value=!0,r.value=null;let f=d.value;try{await N(e,ne(e,n.value))?t():d.value!==f&&(r.value=d.value,d.value=f)}finally{l.value=!1}},p=n.value;return a`<dialog ref=${o} class="panel" aria-labelledby="panel-title" onClose=${t}>
    <form onSubmit=${u}>
      <h2 id="panel-title">Edit todo</h2>
      <${E} problem=${r.value} onDismiss=${()=>r.value=null} />
      <label>Title <input name="title" required maxLength="1024" value=${p.title} onInput=${s("title")} /></label>
      <label>Tags <input name="tags" placeholder="comma, separated" value=${p.tags} onInput=${s("tags")} /></label>
      <label>Due <input name="due" type="date" value=${p.due} onInput=${s("due")} /></label>
      <label>Notes <textarea name="notes" rows="4" value=${p.notes} onInput=${s("notes")}></textarea></label>
      <label>Move to category <input name="category" list="categories" value=${p.category} onInput=${s("category")} /></label>
      <p class="hint">Version ${e.version}, updated ${e.updatedAt.slice(0,16).replace("T"," ")} UTC. Id <code>${e.id}</code></p>
      <div class="buttons">
        <button type="submit" disabled=${l.value}>Save</button>
        <button type="button" onClick=${t}>Close</button>
      </div>
    </form>
  </dialog>`}var le=["title","isCompleted","tags","dueDate","notes","category"];function Z(e){return e==null||e===""?"—":Array.isArray(e)?e.join(", ")||"—":typeof e=="boolean"?e?"completed":"active":String(e)}function X({conflict:e}){let t=J(),o=le.filter(r=>r in e.mine),n=e.server,l=e.mine;return a`<dialog ref=${t} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
    onCancel=${r=>r.preventDefault()}>
    <h2 id="conflict-title">Changed since you loaded it</h2>
    <p id="conflict-detail">
      "${e.loaded.title}" is at version ${e.server.version} on the server; you loaded version ${e.loaded.version}.
      Keep yours (it is sent again over the server's version) or take the server's.
    </p>
    <table>
      <thead><tr><th scope="col">Field</th><th scope="col">Yours</th><th scope="col">Server's</th></tr></thead>
      <tbody>
        ${o.map(r=>a`<tr><th scope="row">${r}</th><td class="mine">${Z(l[r])}</td><td class="theirs">${Z(n[r])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${()=>{x(!0)}}>Keep mine</button>
      <button onClick=${()=>{x(!1)}}>Take theirs</button>
    </div>
  </dialog>`}var ee=k(()=>g.value.filter(e=>!e.isCompleted)),te=k(()=>g.value.filter(e=>e.isCompleted)),_="Inbox";function re(e){switch(e){case"active":return ee.value;case"completed":return te.value;default:return g.value}}function oe({filter:e}){let t=c(null),o=g.value,n=ee.value.length,l=re(e);return a`
    <${se} />
    <${ie} />
    ${o.length>0&&a`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${n===0}
          onChange=${r=>{O(r.currentTarget.checked)}} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${l.map(r=>a`<${ce} key=${r.id} todo=${r} onDetails=${()=>t.value=r} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${n}</strong> ${n===1?"item":"items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${e==="all"?"selected":""}>All</a></li>
          <li><a href="#/active" class=${e==="active"?"selected":""}>Active</a></li>
          <li><a href="#/completed" class=${e==="completed"?"selected":""}>Completed</a></li>
        </ul>
        ${te.value.length>0&&a`<button class="clear-completed" onClick=${()=>{z()}}>Clear completed</button>`}
      </footer>`}
    <${ue} />
    ${t.value&&a`<${Q} todo=${t.value} onClose=${()=>t.value=null} />`}
  `}function se(){let e=m(null),t=c("");return v(()=>e.current?.focus(),[]),a`<div class="create">
    <input ref=${e} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${async n=>{if(n.key!=="Enter"||n.isComposing)return;let l=n.currentTarget,r=l.value,s=r.trim();if(!s)return;l.value="",!await q(s,t.value.trim()||C.category.value||_)&&l.value===""&&(l.value=r)}} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${C.category.value||_}
      value=${t.value} onInput=${n=>t.value=n.currentTarget.value} />
    <datalist id="categories">${M.value.map(n=>a`<option value=${n} />`)}</datalist>
  </div>`}function ie(){let e=m(void 0),t=C,o=()=>{y()},n=l=>{t.q.value=l.currentTarget.value,clearTimeout(e.current),e.current=setTimeout(o,250)};return a`<div class="toolbar">
    <input type="search" class="search" aria-label="Search" placeholder="Search titles" value=${t.q.value} onInput=${n}
      onKeyDown=${l=>l.key==="Enter"&&(clearTimeout(e.current),o())} />
    <select aria-label="Category" value=${t.category.value}
      onChange=${l=>(t.category.value=l.currentTarget.value,o())}>
      <option value="">All categories</option>
      ${M.value.map(l=>a`<option value=${l}>${l}</option>`)}
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
  </div>`}function ue(){let e=g.value.length;return B.value===null?D.value&&e===0?a`<p class="paging" role="status">Loading…</p>`:null:a`<p class="paging">
    <span>${e} loaded; the server has more.</span>
    <button class="more" disabled=${D.value} onClick=${()=>{y(!0)}}>More</button>
  </p>`}function ce({todo:e,onDetails:t}){let o=c(!1),n=c(e.title),l=m(null),r=m(!1);v(()=>{o.value&&l.current?.focus()},[o.value]);let s=()=>{n.value=e.title,r.current=!1,o.value=!0},u=async()=>{if(r.current)return;r.current=!0;let i=n.value.trim();if(o.value=!1,i===""){await L(e)||p(n.value);return}i!==e.title&&!await I(e,{title:i})&&!b.value&&p(n.value)},p=i=>{n.value=i,r.current=!1,o.value=!0},$=i=>{i.key==="Enter"&&u(),i.key==="Escape"&&(r.current=!0,n.value=e.title,o.value=!1)},f=[e.isCompleted?"completed":"",o.value?"editing":""].filter(Boolean).join(" "),H=e.dueDate?.slice(0,10);return a`<li class=${f} data-id=${e.id}>
    <div class="view">
      <input class="toggle" type="checkbox" checked=${e.isCompleted} aria-label=${"Completed: "+e.title}
        onChange=${i=>{I(e,{isCompleted:i.currentTarget.checked})}} />
      <label onDblClick=${s}>${e.title}</label>
      <span class="meta">
        <span class="category">${e.category}</span>
        ${H&&a` <span class="due">due ${H}</span>`}
        ${(e.tags??[]).map(i=>a` <span class="tag">#${i}</span>`)}
        <a class="history-link" href=${"#/todos/"+encodeURIComponent(e.id)}>History</a>
      </span>
      <button class="details" aria-label=${"Details of "+e.title} onClick=${t}>⋯</button>
      <button class="destroy" aria-label=${"Delete "+e.title} onClick=${()=>{L(e)}}></button>
    </div>
    ${o.value&&a`<input ref=${l} class="edit" aria-label=${"Edit "+e.title} value=${n.value}
      onInput=${i=>n.value=i.currentTarget.value}
      onKeyDown=${$} onBlur=${()=>{u()}} />`}
  </li>`}var w=h(null),R=h({});function pe(){let e=w.value,t=T.value;if(!e)return null;let o=a`<a href="#/activity">My activity</a> <a href="#/forget">Forget my data</a>
    ${t.admin&&a` <a href="#/admin">All users (admin)</a> <a href="#/manage/audit">Manage (admin)</a>`}`;switch(e.authMode){case"dev":return a`<nav class="session" aria-label="Session">
        <form onSubmit=${n=>{n.preventDefault(),j(new FormData(n.currentTarget).get("user"))}}>
          <label>User <input name="user" value=${t.user} autocomplete="off" /></label>
          <button type="submit">Switch user</button>
        </form>
        ${o}
      </nav>`;case"single":return a`<nav class="session" aria-label="Session"><span>Signed in as <strong>${t.user}</strong></span> ${o}</nav>`;default:return a`<nav class="session" aria-label="Session">
        ${t.user?a`<span>Signed in as <strong>${t.user}</strong></span>
              ${o}
              <button type="button" class="link" onClick=${t.signOut}>Sign out</button>`:a`<button type="button" class="link" onClick=${t.signIn}>Sign in</button>`}
      </nav>`}}function de(){let e=V.value;return a`<p class="cost" role="status">
    ${U.value||e&&`scope ${e.scope||"—"} · ${e.charge||"—"} RU`}
  </p>`}function ve(){let e=A.value;return e.view==="todos"?a`<${oe} filter=${e.filter} />`:a`<${me} key=${e.view} route=${e} />`}function me({route:e}){let t=R.value[e.view];return v(()=>{t||P[e.view]().then(o=>R.value={...R.value,[e.view]:o.default},o=>S(o))},[e.view,t]),t?a`<${t} route=${e} />`:a`<p role="status">Loading…</p>`}function fe(){let t=T.value.user!==""||w.value?.authMode==="single";return a`
    <${pe} />
    <main>
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${E} problem=${d.value} onDismiss=${()=>d.value=null} />
      ${t?a`<${ve} />`:a`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${de} />
    </main>
    ${b.value&&a`<${X} conflict=${b.value} />`}
  `}async function ge(){let e=document.getElementById("app");try{w.value=await W(),await F(w.value)}catch(t){S(t)}e.textContent="",K(a`<${fe} />`,e),(T.value.user!==""||w.value?.authMode==="single")&&await y()}ge();
