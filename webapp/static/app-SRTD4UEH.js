import{B as I,C as x,D as L,E as O,F as z,G as W,a as K,b as v,c as m,e as h,f as k,g as c,h as w,i as j,j as F,k as V,l as U,o as a,p as g,q as B,r as D,s as d,t as M,u as T,v as C,w as q,x as S,y as b,z as N}from"./chunk-BQ6TGLFY.js";async function Y(){let e=await fetch("/config.json",{headers:{Accept:"application/json"}});if(!e.ok)throw new Error(`the page's configuration did not load: ${e.status}`);return await e.json()}function E({problem:e,onDismiss:t}){return e?a`<div class="problem" role="alert">
    <strong class="problem-title">${e.title}</strong>
    <span class="problem-detail">${e.detail}</span>
    <button type="button" onClick=${t}>Dismiss</button>
  </div>`:null}var P={admin:()=>import("./admin-GI7FAGLK.js"),history:()=>import("./history-NFP74IW7.js"),activity:()=>import("./activity-K4KLGPU3.js"),forget:()=>import("./forget-7SKYZ6FK.js"),manage:()=>import("./manage-YWPS662R.js")};function Z(e){let t=e.replace(/^#\/?/,""),[o="",...n]=t.split("/");return o==="active"||o==="completed"?{view:"todos",filter:o,rest:""}:o==="todos"&&n.length>0?{view:"history",filter:"all",rest:n.join("/")}:o in P?{view:o,filter:"all",rest:n.join("/")}:{view:"todos",filter:"all",rest:""}}var A=h(Z(location.hash));addEventListener("hashchange",()=>{A.value=Z(location.hash)});function Q(){let e=m(null);return v(()=>{let t=e.current;t&&!t.open&&t.showModal()},[]),e}var ne=e=>e.split(",").map(t=>t.trim()).filter(Boolean);function le(e,t){let o={},n=t.title.trim();n!==e.title&&(o.title=n);let l=ne(t.tags);l.join(",")!==(e.tags??[]).join(",")&&(o.tags=l.length?l:null);let r=t.due?t.due+"T00:00:00Z":null;(r??"").slice(0,10)!==(e.dueDate??"").slice(0,10)&&(o.dueDate=r);let s=t.notes;s!==(e.notes??"")&&(o.notes=s===""?null:s);let u=t.category.trim();return u&&u!==e.category&&(o.category=u),o}function X({todo:e,onClose:t}){let o=Q(),n=c({title:e.title,tags:(e.tags??[]).join(", "),due:e.dueDate?.slice(0,10)??"",notes:e.notes??"",category:e.category}),l=c(!1),r=c(null),s=$=>f=>{n.value={...n.value,[$]:f.currentTarget.value}},u=async $=>{$.preventDefault(),l.value=!0,r.value=null;let f=d.value;try{await O(e,le(e,n.value))?t():d.value!==f&&(r.value=d.value,d.value=f)}finally{l.value=!1}},p=n.value;return a`<dialog ref=${o} class="panel" aria-labelledby="panel-title" onClose=${t}>
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
  </dialog>`}var re=["title","isCompleted","tags","dueDate","notes","category"];function G(e){return e==null||e===""?"—":Array.isArray(e)?e.join(", ")||"—":typeof e=="boolean"?e?"completed":"active":String(e)}function _({conflict:e,more:t}){let o=Q(),n=re.filter(s=>s in e.mine),l=e.server,r=e.mine;return a`<dialog ref=${o} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
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
        ${n.map(s=>a`<tr><th scope="row">${s}</th><td class="mine">${G(r[s])}</td><td class="theirs">${G(l[s])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${()=>{x(!0)}}>Keep mine</button>
      <button onClick=${()=>{x(!1)}}>Take theirs</button>
    </div>
  </dialog>`}var te=k(()=>g.value.filter(e=>!e.isCompleted)),oe=k(()=>g.value.filter(e=>e.isCompleted)),ee="Inbox";function se(e){switch(e){case"active":return te.value;case"completed":return oe.value;default:return g.value}}function ae({filter:e}){let t=c(null),o=g.value,n=te.value.length,l=se(e);return a`
    <${ie} />
    <${ue} />
    ${o.length>0&&a`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${n===0}
          onChange=${r=>{z(r.currentTarget.checked)}} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${l.map(r=>a`<${pe} key=${r.id} todo=${r} onDetails=${()=>t.value=r} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${n}</strong> ${n===1?"item":"items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${e==="all"?"selected":""}>All</a></li>
          <li><a href="#/active" class=${e==="active"?"selected":""}>Active</a></li>
          <li><a href="#/completed" class=${e==="completed"?"selected":""}>Completed</a></li>
        </ul>
        ${oe.value.length>0&&a`<button class="clear-completed" onClick=${()=>{W()}}>Clear completed</button>`}
      </footer>`}
    <${ce} />
    ${t.value&&a`<${X} todo=${t.value} onClose=${()=>t.value=null} />`}
  `}function ie(){let e=m(null),t=c("");return v(()=>e.current?.focus(),[]),a`<div class="create">
    <input ref=${e} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${async n=>{if(n.key!=="Enter"||n.isComposing)return;let l=n.currentTarget,r=l.value,s=r.trim();if(!s)return;l.value="",!await N(s,t.value.trim()||T.category.value||ee)&&l.value===""&&(l.value=r)}} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${T.category.value||ee}
      value=${t.value} onInput=${n=>t.value=n.currentTarget.value} />
    <datalist id="categories">${M.value.map(n=>a`<option value=${n} />`)}</datalist>
  </div>`}function ue(){let e=m(void 0),t=T,o=()=>{b()},n=l=>{t.q.value=l.currentTarget.value,clearTimeout(e.current),e.current=setTimeout(o,250)};return a`<div class="toolbar">
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
  </div>`}function ce(){let e=g.value.length;return B.value===null?D.value&&e===0?a`<p class="paging" role="status">Loading…</p>`:null:a`<p class="paging">
    <span>${e} loaded; the server has more.</span>
    <button class="more" disabled=${D.value} onClick=${()=>{b(!0)}}>More</button>
  </p>`}function pe({todo:e,onDetails:t}){let o=c(!1),n=c(e.title),l=m(null),r=m(!1);v(()=>{o.value&&l.current?.focus()},[o.value]);let s=()=>{n.value=e.title,r.current=!1,o.value=!0},u=async()=>{if(r.current)return;r.current=!0;let i=n.value.trim();if(o.value=!1,i===""){await L(e)||p(n.value);return}i!==e.title&&!await I(e,{title:i})&&!q(e.id)&&p(n.value)},p=i=>{n.value=i,r.current=!1,o.value=!0},$=i=>{i.key==="Enter"&&u(),i.key==="Escape"&&(r.current=!0,n.value=e.title,o.value=!1)},f=[e.isCompleted?"completed":"",o.value?"editing":""].filter(Boolean).join(" "),H=e.dueDate?.slice(0,10);return a`<li class=${f} data-id=${e.id}>
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
  </li>`}var y=h(null),R=h({});function de(){let e=y.value,t=w.value;if(!e)return null;let o=a`<a href="#/activity">My activity</a> <a href="#/forget">Forget my data</a>
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
      </nav>`}}function ve(){let e=V.value;return a`<p class="cost" role="status">
    ${U.value||e&&`scope ${e.scope||"—"} · ${e.charge||"—"} RU`}
  </p>`}function me(){let e=A.value;return e.view==="todos"?a`<${ae} filter=${e.filter} />`:a`<${fe} key=${e.view} route=${e} />`}function fe({route:e}){let t=R.value[e.view];return v(()=>{t||P[e.view]().then(o=>R.value={...R.value,[e.view]:o.default},o=>S(o))},[e.view,t]),t?a`<${t} route=${e} />`:a`<p role="status">Loading…</p>`}function ge(){let t=w.value.user!==""||y.value?.authMode==="single";return a`
    <${de} />
    <main>
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${E} problem=${d.value} onDismiss=${()=>d.value=null} />
      ${t?a`<${me} />`:a`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${ve} />
    </main>
    ${C.value[0]&&a`<${_} conflict=${C.value[0]} more=${C.value.length-1} />`}
  `}async function $e(){let e=document.getElementById("app");try{y.value=await Y(),await F(y.value)}catch(t){S(t)}e.textContent="",K(a`<${ge} />`,e),(w.value.user!==""||y.value?.authMode==="single")&&await b()}$e();
