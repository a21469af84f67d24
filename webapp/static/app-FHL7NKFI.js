import{A as D,B as S,C as I,D as B,E as q,F as N,a as H,b as d,c as p,e as m,f as T,g as c,h as y,i as P,j as K,k as j,l as F,o as n,p as f,q as V,r as C,s as E,t as k,u as b,v as g,w as M,x as $,y as U}from"./chunk-7SJVEYL5.js";async function O(){let e=await fetch("/config.json",{headers:{Accept:"application/json"}});if(!e.ok)throw new Error(`the page's configuration did not load: ${e.status}`);return await e.json()}var x={admin:()=>import("./admin-GC4USFBB.js"),history:()=>import("./history-MOT6K5AO.js"),activity:()=>import("./activity-DYQGJDAJ.js"),forget:()=>import("./forget-YW7ASXBR.js"),manage:()=>import("./manage-C4ZUO2Z2.js")};function z(e){let t=e.replace(/^#\/?/,""),[o="",...a]=t.split("/");return o==="active"||o==="completed"?{view:"todos",filter:o,rest:""}:o==="todos"&&a.length>0?{view:"history",filter:"all",rest:a.join("/")}:o in x?{view:o,filter:"all",rest:a.join("/")}:{view:"todos",filter:"all",rest:""}}var L=m(z(location.hash));addEventListener("hashchange",()=>{L.value=z(location.hash)});function Z(){let e=p(null);return d(()=>{let t=e.current;t&&!t.open&&t.showModal()},[]),e}var oe=e=>e.split(",").map(t=>t.trim()).filter(Boolean);function ae(e,t){let o={},a=t.title.trim();a!==e.title&&(o.title=a);let l=oe(t.tags);l.join(",")!==(e.tags??[]).join(",")&&(o.tags=l.length?l:null);let s=t.due?t.due+"T00:00:00Z":null;(s??"").slice(0,10)!==(e.dueDate??"").slice(0,10)&&(o.dueDate=s);let u=t.notes;u!==(e.notes??"")&&(o.notes=u===""?null:u);let i=t.category.trim();return i&&i!==e.category&&(o.category=i),o}function G({todo:e,onClose:t}){let o=Z(),a=c({title:e.title,tags:(e.tags??[]).join(", "),due:e.dueDate?.slice(0,10)??"",notes:e.notes??"",category:e.category}),l=c(!1),s=v=>w=>{a.value={...a.value,[v]:w.currentTarget.value}},u=async v=>{v.preventDefault(),l.value=!0;try{await B(e,ae(e,a.value))&&t()}finally{l.value=!1}},i=a.value;return n`<dialog ref=${o} class="panel" aria-labelledby="panel-title" onClose=${t}>
    <form onSubmit=${u}>
      <h2 id="panel-title">Edit todo</h2>
      <label>Title <input name="title" required maxLength="1024" value=${i.title} onInput=${s("title")} /></label>
      <label>Tags <input name="tags" placeholder="comma, separated" value=${i.tags} onInput=${s("tags")} /></label>
      <label>Due <input name="due" type="date" value=${i.due} onInput=${s("due")} /></label>
      <label>Notes <textarea name="notes" rows="4" value=${i.notes} onInput=${s("notes")}></textarea></label>
      <label>Move to category <input name="category" list="categories" value=${i.category} onInput=${s("category")} /></label>
      <p class="hint">Version ${e.version}, updated ${e.updatedAt.slice(0,16).replace("T"," ")} UTC. Id <code>${e.id}</code></p>
      <div class="buttons">
        <button type="submit" disabled=${l.value}>Save</button>
        <button type="button" onClick=${t}>Close</button>
      </div>
    </form>
  </dialog>`}var ne=["title","isCompleted","tags","dueDate","notes","category"];function W(e){return e==null||e===""?"—":Array.isArray(e)?e.join(", ")||"—":typeof e=="boolean"?e?"completed":"active":String(e)}function J({conflict:e}){let t=Z(),o=ne.filter(s=>s in e.mine),a=e.server,l=e.mine;return n`<dialog ref=${t} class="conflict" role="alertdialog" aria-labelledby="conflict-title" aria-describedby="conflict-detail"
    onCancel=${s=>s.preventDefault()}>
    <h2 id="conflict-title">Changed since you loaded it</h2>
    <p id="conflict-detail">
      "${e.loaded.title}" is at version ${e.server.version} on the server; you loaded version ${e.loaded.version}.
      Keep yours (it is sent again over the server's version) or take the server's.
    </p>
    <table>
      <thead><tr><th scope="col">Field</th><th scope="col">Yours</th><th scope="col">Server's</th></tr></thead>
      <tbody>
        ${o.map(s=>n`<tr><th scope="row">${s}</th><td class="mine">${W(l[s])}</td><td class="theirs">${W(a[s])}</td></tr>`)}
      </tbody>
    </table>
    <div class="buttons">
      <button onClick=${()=>{S(!0)}}>Keep mine</button>
      <button onClick=${()=>{S(!1)}}>Take theirs</button>
    </div>
  </dialog>`}var X=T(()=>f.value.filter(e=>!e.isCompleted)),_=T(()=>f.value.filter(e=>e.isCompleted)),Q="Inbox";function le(e){switch(e){case"active":return X.value;case"completed":return _.value;default:return f.value}}function ee({filter:e}){let t=c(null),o=f.value,a=X.value.length,l=le(e);return n`
    <${se} />
    <${re} />
    ${o.length>0&&n`<section class="main">
        <input id="toggle-all" class="toggle-all" type="checkbox" checked=${a===0}
          onChange=${s=>{q(s.currentTarget.checked)}} />
        <label for="toggle-all">Mark all as complete</label>
        <ul class="todo-list">
          ${l.map(s=>n`<${ue} key=${s.id} todo=${s} onDetails=${()=>t.value=s} />`)}
        </ul>
      </section>
      <footer class="footer">
        <span class="todo-count"><strong>${a}</strong> ${a===1?"item":"items"} left</span>
        <ul class="filters">
          <li><a href="#/" class=${e==="all"?"selected":""}>All</a></li>
          <li><a href="#/active" class=${e==="active"?"selected":""}>Active</a></li>
          <li><a href="#/completed" class=${e==="completed"?"selected":""}>Completed</a></li>
        </ul>
        ${_.value.length>0&&n`<button class="clear-completed" onClick=${()=>{N()}}>Clear completed</button>`}
      </footer>`}
    <${ie} />
    ${t.value&&n`<${G} todo=${t.value} onClose=${()=>t.value=null} />`}
  `}function se(){let e=p(null),t=c("");return d(()=>e.current?.focus(),[]),n`<div class="create">
    <input ref=${e} class="new-todo" placeholder="What needs to be done?" autofocus aria-label="New todo" onKeyDown=${async a=>{if(a.key!=="Enter"||a.isComposing)return;let l=a.currentTarget,s=l.value,u=s.trim();if(!u)return;l.value="",!await U(u,t.value.trim()||b.category.value||Q)&&l.value===""&&(l.value=s)}} />
    <input class="new-category" aria-label="Category of the new todo" list="categories" placeholder=${b.category.value||Q}
      value=${t.value} onInput=${a=>t.value=a.currentTarget.value} />
    <datalist id="categories">${k.value.map(a=>n`<option value=${a} />`)}</datalist>
  </div>`}function re(){let e=p(void 0),t=b,o=()=>{$()},a=l=>{t.q.value=l.currentTarget.value,clearTimeout(e.current),e.current=setTimeout(o,250)};return n`<div class="toolbar">
    <input type="search" class="search" aria-label="Search" placeholder="Search titles" value=${t.q.value} onInput=${a}
      onKeyDown=${l=>l.key==="Enter"&&(clearTimeout(e.current),o())} />
    <select aria-label="Category" value=${t.category.value}
      onChange=${l=>(t.category.value=l.currentTarget.value,o())}>
      <option value="">All categories</option>
      ${k.value.map(l=>n`<option value=${l}>${l}</option>`)}
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
  </div>`}function ie(){let e=f.value.length;return V.value===null?C.value&&e===0?n`<p class="paging" role="status">Loading…</p>`:null:n`<p class="paging">
    <span>${e} loaded; the server has more.</span>
    <button class="more" disabled=${C.value} onClick=${()=>{$(!0)}}>More</button>
  </p>`}function ue({todo:e,onDetails:t}){let o=c(!1),a=c(e.title),l=p(null),s=p(!1);d(()=>{o.value&&l.current?.focus()},[o.value]);let u=()=>{a.value=e.title,s.current=!1,o.value=!0},i=async()=>{if(s.current)return;s.current=!0;let r=a.value.trim();if(o.value=!1,r===""){await I(e)||v(a.value);return}r!==e.title&&!await D(e,{title:r})&&!g.value&&v(a.value)},v=r=>{a.value=r,s.current=!1,o.value=!0},w=r=>{r.key==="Enter"&&i(),r.key==="Escape"&&(s.current=!0,a.value=e.title,o.value=!1)},te=[e.isCompleted?"completed":"",o.value?"editing":""].filter(Boolean).join(" "),R=e.dueDate?.slice(0,10);return n`<li class=${te} data-id=${e.id}>
    <div class="view">
      <input class="toggle" type="checkbox" checked=${e.isCompleted} aria-label=${"Completed: "+e.title}
        onChange=${r=>{D(e,{isCompleted:r.currentTarget.checked})}} />
      <label onDblClick=${u}>${e.title}</label>
      <span class="meta">
        <span class="category">${e.category}</span>
        ${R&&n` <span class="due">due ${R}</span>`}
        ${(e.tags??[]).map(r=>n` <span class="tag">#${r}</span>`)}
        <a class="history-link" href=${"#/todos/"+encodeURIComponent(e.id)}>History</a>
      </span>
      <button class="details" aria-label=${"Details of "+e.title} onClick=${t}>⋯</button>
      <button class="destroy" aria-label=${"Delete "+e.title} onClick=${()=>{I(e)}}></button>
    </div>
    ${o.value&&n`<input ref=${l} class="edit" aria-label=${"Edit "+e.title} value=${a.value}
      onInput=${r=>a.value=r.currentTarget.value}
      onKeyDown=${w} onBlur=${()=>{i()}} />`}
  </li>`}var h=m(null),A=m({});function ce(){let e=h.value,t=y.value;if(!e)return null;let o=n`<a href="#/activity">My activity</a> <a href="#/forget">Forget my data</a>
    ${t.admin&&n` <a href="#/admin">All users (admin)</a> <a href="#/manage/audit">Manage (admin)</a>`}`;switch(e.authMode){case"dev":return n`<nav class="session" aria-label="Session">
        <form onSubmit=${a=>{a.preventDefault(),P(new FormData(a.currentTarget).get("user"))}}>
          <label>User <input name="user" value=${t.user} autocomplete="off" /></label>
          <button type="submit">Switch user</button>
        </form>
        ${o}
      </nav>`;case"single":return n`<nav class="session" aria-label="Session"><span>Signed in as <strong>${t.user}</strong></span> ${o}</nav>`;default:return n`<nav class="session" aria-label="Session">
        ${t.user?n`<span>Signed in as <strong>${t.user}</strong></span>
              ${o}
              <button type="button" class="link" onClick=${t.signOut}>Sign out</button>`:n`<button type="button" class="link" onClick=${t.signIn}>Sign in</button>`}
      </nav>`}}function de(){let e=E.value;return e?n`<div class="problem" role="alert">
    <strong class="problem-title">${e.title}</strong>
    <span class="problem-detail">${e.detail}</span>
    <button type="button" onClick=${()=>E.value=null}>Dismiss</button>
  </div>`:null}function pe(){let e=j.value;return n`<p class="cost" role="status">
    ${F.value||e&&`scope ${e.scope||"—"} · ${e.charge||"—"} RU`}
  </p>`}function ve(){let e=L.value;return e.view==="todos"?n`<${ee} filter=${e.filter} />`:n`<${fe} key=${e.view} route=${e} />`}function fe({route:e}){let t=A.value[e.view];return d(()=>{t||x[e.view]().then(o=>A.value={...A.value,[e.view]:o.default},o=>M(o))},[e.view,t]),t?n`<${t} route=${e} />`:n`<p role="status">Loading…</p>`}function me(){let t=y.value.user!==""||h.value?.authMode==="single";return n`
    <${ce} />
    <main>
    <section class="todoapp">
      <header class="header"><h1>todos</h1></header>
      <${de} />
      ${t?n`<${ve} />`:n`<p class="signin">Sign in to see your todos.</p>`}
    </section>
    <${pe} />
    </main>
    ${g.value&&n`<${J} conflict=${g.value} />`}
  `}async function ge(){let e=document.getElementById("app");try{h.value=await O(),await K(h.value)}catch(t){M(t)}e.textContent="",H(n`<${me} />`,e),(y.value.user!==""||h.value?.authMode==="single")&&await $()}ge();
