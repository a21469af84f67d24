import{f as r}from"./chunk-5QLG4ZBD.js";import{m as t,o as i}from"./chunk-2KLZ6D2K.js";function o(){return i`<${r} title="My activity" caption="Activity" back=${!0}
    exportPath="/api/activity/export" exportName="my-activity"
    list=${(e,a)=>t.GET("/api/activity",{params:{query:{...e,pageSize:50,form:2,continuation:a}}})} />`}export{o as default};
