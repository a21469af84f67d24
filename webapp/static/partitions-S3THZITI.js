import{g as m}from"./chunk-46BDX5KF.js";import{g as i,m as c,o as r,x as p}from"./chunk-VQVAES3U.js";var f=.4;function b(){let l=i(null),n=i(""),u=async()=>{let t=n.value?{top:20,container:n.value}:{top:20},{data:a,error:s,response:$}=await c.GET("/api/manage/partitions",{params:{query:t}});if(!a)return p(s,$);l.value=a};m(u);let e=l.value,o=[...e?.partitions??[]].sort((t,a)=>a.ru-t.ru||a.requests-t.requests),d=Math.max(...o.map(t=>t.ru),Number.MIN_VALUE),h=o.reduce((t,a)=>t+a.ru,0);return r`<section class="records" aria-labelledby="partitions-title">
    <h2 id="partitions-title">Partitions' load</h2>
    ${e&&r`<p>The last ${e.window} (per ${e.resolution}), counted on ${e.scope==="instance"?"the instance that answered":e.scope}.
      ${e.fleetQuery&&r` ${e.fleetQuery.hint} Query: “${e.fleetQuery.name}” (${e.fleetQuery.table}).`}</p>`}
    <form class="filters" aria-label="Filters" onSubmit=${t=>{t.preventDefault(),u()}}>
      <label>Container <input name="container" value=${n.value} placeholder="all" autocomplete="off"
        onInput=${t=>n.value=t.currentTarget.value.trim()} /></label>
      <button type="submit">Refresh</button>
    </form>
    ${e&&(o.length===0?r`<p>No request in the window.</p>`:r`<ol class="bars" aria-label="Partitions by RU, heaviest first">
      ${o.map(t=>{let a=`${t.container} / ${t.partitionKey?.join(" / ")??"(cross-partition)"}`,s=o.length>1&&t.ru>=f*h;return r`<li key=${a} class=${s?"hot":""}>
          <span class="bar-label">${a}${s&&r` <strong>hot</strong>`}</span>
          <span class="bar" aria-hidden="true"><span style=${`width:${Math.max(1,100*t.ru/d).toFixed(1)}%`}></span></span>
          <span class="bar-value">${t.ru.toFixed(2)} RU (${(100*t.ruShare).toFixed(0)}%), ${t.requests} requests, ${t.scope}</span>
        </li>`})}
    </ol>`)}
  </section>`}export{b as default};
