import{a as n}from"./chunk-46BDX5KF.js";import{o as t,x as a}from"./chunk-VQVAES3U.js";var l=1e3,u=600*1e3;function f(e,s){let r=!1,i=Date.now()+u;return(async()=>{for(;!r;){try{e.value=await s()}catch(d){return a(d)}if(!e.value||e.value.state==="done"||Date.now()>i)return;await new Promise(d=>setTimeout(d,l))}})(),()=>r=!0}var o=e=>Object.entries(e).map(([s,r])=>`${s} ${r}`).join(", ")||"none";function $({erasure:e}){return t`<div class="erasure" role="status" aria-label=${`Erasure of ${e.userId}`}>
    <p><strong>Erasure of ${e.userId}: ${e.state==="done"?"done":`running (${e.phase})`}</strong>
      ${e.heldBy&&t` — paused by the legal hold ${e.heldBy}`}</p>
    <dl>
      <dt>Requested</dt><dd>${n(e.requestedAt)} by ${e.requestedBy} (run ${e.run}): ${e.reason}</dd>
      <dt>Erased</dt><dd>${o(e.erased)}</dd>
      <dt>Left as they are (first chain encoding)</dt><dd>${o(e.firstEncoding)}</dd>
      ${e.finishedAt&&t`<dt>Finished</dt><dd>${n(e.finishedAt)}</dd>`}
    </dl>
  </div>`}export{f as a,$ as b};
