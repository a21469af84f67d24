import{f as r}from"./chunk-VJQZ5XZL.js";import{l as t,n as i}from"./chunk-JBMN6QHN.js";function o(){return i`<${r} title="My activity" caption="Activity" back=${!0}
    exportPath="/api/activity/export" exportName="my-activity"
    list=${(e,a)=>t.GET("/api/activity",{params:{query:{...e,pageSize:50,form:2,continuation:a}}})} />`}export{o as default};
