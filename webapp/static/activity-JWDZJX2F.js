import{f as r}from"./chunk-46BDX5KF.js";import{m as t,o as i}from"./chunk-VQVAES3U.js";function o(){return i`<${r} title="My activity" caption="Activity" back=${!0}
    exportPath="/api/activity/export" exportName="my-activity"
    list=${(e,a)=>t.GET("/api/activity",{params:{query:{...e,pageSize:50,form:2,continuation:a}}})} />`}export{o as default};
