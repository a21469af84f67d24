package infra_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/telemetry"
)

// What a team runs the deployment by: Cosmos DB's per-partition-key RU log
// in Log Analytics with a saved query over it, priority-based execution,
// and the alerts. Each check below fails when one of them is removed or
// loses its wiring; the mutations in infra_test.go prove it.

const (
	monitoringFile = "modules/monitoring.bicep"
	alertsFile     = "modules/alerts.bicep"
)

// resourcesOf returns the resources of f of one type that the file
// deploys (not existing references).
func resourcesOf(f *bicepFile, typ string) []*bicepResource {
	var out []*bicepResource
	for _, r := range f.Resources {
		if r.Type == typ && !r.Existing {
			out = append(out, r)
		}
	}
	return out
}

// declared reports whether ref ("account" in scope: account) names a
// resource of type typ in f.
func declared(f *bicepFile, ref expr, typ string) bool {
	for _, r := range f.Resources {
		if expr(r.Name) == ref && r.Type == typ {
			return true
		}
	}
	return false
}

// isIDOf reports whether v is `name.id` for a resource of type typ in f.
func isIDOf(f *bicepFile, v any, typ string) bool {
	e, _ := v.(expr)
	name, ok := strings.CutSuffix(string(e), ".id")
	return ok && declared(f, expr(name), typ)
}

// stringOf resolves a value that is a string literal or a variable holding
// one.
func stringOf(f *bicepFile, v any) string {
	s, _ := resolve(f, v, choice{}).(string)
	return s
}

// basicTableRefuses are the KQL operators a query of a Basic-plan table
// cannot use (Azure Monitor: Query data in a Basic and Auxiliary table,
// KQL language limitations); user-defined functions (a saved search with
// a functionAlias) are refused too.
var basicTableRefuses = regexp.MustCompile(`\|\s*(join|find|search)\b|\bexternaldata\b`)

// checkHotPartitions: Cosmos DB sends PartitionKeyRUConsumption (and its
// control-plane operations) to the deployment's workspace in
// resource-specific mode, the table is on the Basic plan, and the saved
// query the handler names (httpapi.FleetQueryName) reads it: top keys by
// RU, the last hour, per 5 minutes, within the Basic plan's KQL.
func checkHotPartitions(s sources) []string {
	var p problems
	main, cosmos, mon := parsed(s, mainFile, &p), parsed(s, cosmosFile, &p), parsed(s, monitoringFile, &p)
	if main == nil || cosmos == nil || mon == nil {
		return p
	}
	ds := resourcesOf(cosmos, "Microsoft.Insights/diagnosticSettings")
	if len(ds) != 1 {
		p.add("%s: want one diagnosticSettings resource sending the account's logs to Log Analytics, found %d", cosmosFile, len(ds))
	}
	for _, d := range ds {
		where := cosmosFile + ": diagnostic setting " + d.Name
		if scope, _ := d.Body["scope"].(expr); !declared(cosmos, scope, "Microsoft.DocumentDB/databaseAccounts") {
			p.add("%s: scope %v, want the Cosmos DB account", where, d.Body["scope"])
		}
		if v, _ := get(d.Body, "properties", "logAnalyticsDestinationType"); v != "Dedicated" {
			p.add("%s: logAnalyticsDestinationType %v, want Dedicated (resource-specific tables such as CDBPartitionKeyRUConsumption)", where, v)
		}
		ws, _ := get(d.Body, "properties", "workspaceId")
		name, _ := ws.(expr)
		if cosmos.Params[string(name)] == nil {
			p.add("%s: workspaceId %v, want a parameter", where, ws)
		} else if v, _ := get(moduleOf(main, cosmosFile).Body, "params", string(name)); v != expr("monitoring.outputs.logAnalyticsId") {
			p.add("%s: module cosmos is given %s = %v, want monitoring.outputs.logAnalyticsId", mainFile, name, v)
		}
		logs, _ := get(d.Body, "properties", "logs")
		for _, category := range []string{"PartitionKeyRUConsumption", "ControlPlaneRequests"} {
			if !slices.ContainsFunc(asList(logs), func(l any) bool {
				c, _ := get(l, "category")
				on, _ := get(l, "enabled")
				return c == category && on == true
			}) {
				p.add("%s: log category %s is not enabled", where, category)
			}
		}
	}
	if o := outputOf(mon, "logAnalyticsId"); o == nil || o.Raw != "workspace.id" {
		p.add("%s: no output logAnalyticsId = workspace.id", monitoringFile)
	}

	basic := false
	for _, t := range resourcesOf(mon, "Microsoft.OperationalInsights/workspaces/tables") {
		plan, _ := get(t.Body, "properties", "plan")
		if t.Body["name"] == httpapi.FleetQueryTable && t.Body["parent"] == expr("workspace") && plan == "Basic" {
			basic = true
		}
	}
	if !basic {
		p.add("%s: the workspace's %s table is not on the Basic plan (a workspaces/tables resource with plan Basic)", monitoringFile, httpapi.FleetQueryTable)
	}
	saved := false
	for _, r := range resourcesOf(mon, "Microsoft.OperationalInsights/workspaces/savedSearches") {
		name, _ := get(r.Body, "properties", "displayName")
		if name != httpapi.FleetQueryName {
			continue
		}
		saved = true
		where := fmt.Sprintf("%s: saved query %q", monitoringFile, name)
		q, _ := get(r.Body, "properties", "query")
		query := stringOf(mon, q)
		if first, _, _ := strings.Cut(strings.TrimSpace(query), "\n"); strings.TrimSpace(first) != httpapi.FleetQueryTable {
			p.add("%s does not read %s: %q", where, httpapi.FleetQueryTable, query)
		}
		for _, part := range []string{"ago(1h)", "bin(TimeGenerated, 5m)", "top-nested 10 of PartitionKey by RU = sum(RequestCharge)"} {
			if !strings.Contains(query, part) {
				p.add("%s lacks %q (top partition keys by RU, last hour, per 5 minutes)", where, part)
			}
		}
		if basic {
			if m := basicTableRefuses.FindString(query); m != "" {
				p.add("%s uses %q, which a query of a Basic-plan table cannot (Azure Monitor: Query data in a Basic and Auxiliary table)", where, m)
			}
			if alias, ok := get(r.Body, "properties", "functionAlias"); ok {
				p.add("%s is a function (functionAlias %v): a query of a Basic-plan table cannot call user-defined functions (Azure Monitor: Query data in a Basic and Auxiliary table)", where, alias)
			}
		}
	}
	if !saved {
		p.add("%s: no savedSearches resource with displayName %q (httpapi.FleetQueryName, which the partition view names)", monitoringFile, httpapi.FleetQueryName)
	}
	return p
}

func outputOf(f *bicepFile, name string) *bicepOutput {
	for _, o := range f.Outputs {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// checkPriority: on provisioned throughput the account turns on
// priority-based execution with High as the default, so that only the
// requests the cosmos package marks Low yield. (Serverless refuses it:
// platformRules.)
func checkPriority(s sources) []string {
	state, found := deployedState(s, "autoscale")
	p := problems(found)
	accounts := state["Microsoft.DocumentDB/databaseAccounts"]
	if len(accounts) != 1 {
		p.add("%s: want one Cosmos DB account, found %d", cosmosFile, len(accounts))
	}
	for _, a := range accounts {
		on, _ := get(a, "properties", "enablePriorityBasedExecution")
		level, _ := get(a, "properties", "defaultPriorityLevel")
		if on != true || level != "High" {
			p.add("%s: under autoscale the account has enablePriorityBasedExecution %v and defaultPriorityLevel %v, want true and High", cosmosFile, on, level)
		}
	}
	return p
}

// alertWants is what each log alert must look for: the table it queries
// and the names the handler uses there.
var alertWants = map[string][]string{
	"function-failures": {"requests", "success == false"},
	"audit-lag":         {"customMetrics", "'" + telemetry.MetricAuditLag + "'"},
	"dead-letters":      {"traces", trigger.DeadLetterMessage, "'" + telemetry.MetricDeadLetters + "'"},
}

// checkAlerts: main.bicep deploys the alerts module with the e-mail from
// ALERT_EMAIL; the action group keeps existing without one; Cosmos DB 429s
// above a threshold, failed executions, the audit lag above a bound and any
// dead letter each raise an alert to that group.
func checkAlerts(s sources) []string {
	var p problems
	main, pf, al := parsed(s, mainFile, &p), parsed(s, paramFile, &p), parsed(s, alertsFile, &p)
	if main == nil || pf == nil || al == nil {
		return p
	}
	mod := moduleOf(main, alertsFile)
	if mod == nil {
		p.add("%s: no module %s", mainFile, alertsFile)
		return p
	}
	if v, _ := get(mod.Body, "params", "alertEmail"); v != expr("alertEmail") || main.Params["alertEmail"] == nil || main.Params["alertEmail"].Default != "" {
		p.add("%s: module alerts must be given alertEmail, a parameter defaulting to ''", mainFile)
	}
	if v, _ := pf.Assigns["alertEmail"].(expr); !strings.Contains(string(v), "readEnvironmentVariable('ALERT_EMAIL'") {
		p.add("%s: alertEmail must be read from ALERT_EMAIL, got %v", paramFile, pf.Assigns["alertEmail"])
	}

	groups := resourcesOf(al, "Microsoft.Insights/actionGroups")
	if len(groups) != 1 || groups[0].Condition != "" {
		p.add("%s: want one unconditional action group, found %d", alertsFile, len(groups))
		return p
	}
	group := groups[0]
	receivers, _ := get(group.Body, "properties", "emailReceivers")
	cond, branches, _ := cutTopLevel(fmt.Sprint(receivers), '?')
	none, some, _ := cutTopLevel(branches, ':')
	var email any
	if list := asList(resolve(al, mustConvert(some), choice{})); len(list) > 0 {
		email, _ = get(list[0], "emailAddress")
	}
	if cond != "empty(alertEmail)" || none != "[]" || email != expr("alertEmail") {
		p.add("%s: emailReceivers %v, want empty(alertEmail) ? [] : a receiver with emailAddress alertEmail", alertsFile, receivers)
	}
	toGroup := expr(group.Name + ".id")
	return append(append(p, checkThrottlingAlert(al, toGroup)...), checkLogAlerts(al, toGroup)...)
}

// checkThrottlingAlert: a metric alert on the Cosmos DB account's
// TotalRequests answered 429, above a threshold parameter, notifies the
// group.
func checkThrottlingAlert(al *bicepFile, toGroup expr) []string {
	var p problems
	metric := false
	for _, r := range resourcesOf(al, "Microsoft.Insights/metricAlerts") {
		crit, _ := get(r.Body, "properties", "criteria", "allOf")
		scopes, _ := get(r.Body, "properties", "scopes")
		actions, _ := get(r.Body, "properties", "actions")
		for _, c := range asList(crit) {
			name, _ := get(c, "metricName")
			ns, _ := get(c, "metricNamespace")
			dims, _ := get(c, "dimensions")
			op, _ := get(c, "operator")
			threshold, _ := get(c, "threshold")
			on429 := slices.ContainsFunc(asList(dims), func(d any) bool {
				n, _ := get(d, "name")
				o, _ := get(d, "operator")
				v, _ := get(d, "values")
				vs, _ := stringsOf(v)
				return n == "StatusCode" && o == "Include" && slices.Equal(vs, []string{"429"})
			})
			_, isParam := threshold.(expr)
			if name == "TotalRequests" && ns == "Microsoft.DocumentDB/databaseAccounts" && on429 && op == "GreaterThan" && isParam {
				metric = true
			}
		}
		if metric {
			if list := asList(scopes); len(list) != 1 || !isIDOf(al, list[0], "Microsoft.DocumentDB/databaseAccounts") {
				p.add("%s: %s scopes %v, want the Cosmos DB account", alertsFile, r.Name, scopes)
			}
			if !slices.ContainsFunc(asList(actions), func(a any) bool { v, _ := get(a, "actionGroupId"); return v == toGroup }) {
				p.add("%s: %s does not notify %s", alertsFile, r.Name, toGroup)
			}
			break
		}
	}
	if !metric {
		p.add("%s: no metric alert on Cosmos DB TotalRequests with StatusCode 429 above a threshold parameter", alertsFile)
	}
	return p
}

// checkLogAlerts: one scheduled query rule per entry of a list, each over
// Application Insights running its entry's query and notifying the group,
// and the list has the function-failure, audit-lag and dead-letter alerts
// looking for what the handler records.
func checkLogAlerts(al *bicepFile, toGroup expr) []string {
	var p problems

	loop := ""
	for _, r := range resourcesOf(al, "Microsoft.Insights/scheduledQueryRules") {
		item, list, body := forBody(r)
		groups, _ := get(body, "properties", "actions", "actionGroups")
		scopes, _ := get(body, "properties", "scopes")
		crit, _ := get(body, "properties", "criteria", "allOf")
		queries := asList(crit)
		if item == "" || !slices.Contains(asList(groups), any(toGroup)) || len(queries) != 1 {
			continue
		}
		query, _ := get(queries[0], "query")
		if s := asList(scopes); query == expr(item+".query") && len(s) == 1 && isIDOf(al, s[0], "Microsoft.Insights/components") {
			loop = list
		}
	}
	if loop == "" {
		p.add("%s: no scheduledQueryRules for-expression over Application Insights whose rules run each alert's query and notify %s", alertsFile, toGroup)
		return p
	}
	byName := map[string]map[string]any{}
	for _, a := range asList(al.Vars[loop]) {
		m, _ := a.(map[string]any)
		name, _ := m["name"].(string)
		byName[name] = m
	}
	for name, wants := range alertWants {
		a := byName[name]
		if a == nil {
			p.add("%s: no %s alert in var %s", alertsFile, name, loop)
			continue
		}
		query := stringOf(al, a["query"])
		for _, w := range wants {
			if !strings.Contains(query, w) {
				p.add("%s: the %s alert's query does not look for %q: %q", alertsFile, name, w, query)
			}
		}
		if col, ok := a["metricMeasureColumn"].(string); ok && !strings.Contains(query, col) {
			p.add("%s: the %s alert measures column %s, which its query does not make", alertsFile, name, col)
		}
	}
	if a := byName["dead-letters"]; a != nil && (a["threshold"] != 0 || a["timeAggregation"] != "Count") {
		p.add("%s: the dead-letters alert must fire on any dead letter (Count > 0), has %v > %v", alertsFile, a["timeAggregation"], a["threshold"])
	}
	if a := byName["audit-lag"]; a != nil {
		if _, isParam := a["threshold"].(expr); !isParam || a["timeAggregation"] != "Maximum" {
			p.add("%s: the audit-lag alert must compare the worst lag (Maximum) with a bound parameter, has %v > %v", alertsFile, a["timeAggregation"], a["threshold"])
		}
	}
	return p
}

var forRE = regexp.MustCompile(`^\[\s*for\s+(\w+)\s+in\s+(\w+)\s*:\s*(\{[\s\S]*\})\s*\]$`)

// forBody reads a resource declared as [for item in list: {...}]: the loop
// variable, the list and the body; empty for any other resource.
func forBody(r *bicepResource) (item, list string, body map[string]any) {
	m := forRE.FindStringSubmatch(r.Raw)
	if m == nil {
		return "", "", nil
	}
	v, err := convert(m[3])
	body, _ = v.(map[string]any)
	if err != nil || body == nil {
		return "", "", nil
	}
	return m[1], m[2], body
}

// checkDeployScript: the Azure CLI path's Elastic Premium deployment, which
// uploads the package to the URL the app runs from, restarts the app and
// then syncs triggers (Azure Functions: Deployment technologies, Trigger
// syncing: required for an external package URL).
func checkDeployScript(s sources) []string {
	var p problems
	script := s.DeployScript
	start := strings.Index(script, `if [ "$(output HOSTING_PLAN)" = premium ]; then`)
	end := strings.Index(script[max(start, 0):], "\n\telse\n")
	if start < 0 || end < 0 {
		p.add("%s: no premium branch in the app command", deployScript)
		return p
	}
	premium := script[start : start+end]
	upload := strings.Index(premium, "az storage blob upload")
	restart := strings.Index(premium, "az functionapp restart")
	sync := regexp.MustCompile(`az rest --method post --url "[^"]*/syncfunctiontriggers\?api-version=`).FindStringIndex(premium)
	switch {
	case upload < 0:
		p.add("%s: the premium branch does not upload the package", deployScript)
	case restart < upload:
		p.add("%s: the premium branch does not restart the app after the upload (the host reloads a package URL on restart)", deployScript)
	case sync == nil || sync[0] < upload:
		p.add("%s: the premium branch does not sync triggers after the upload (az rest --method post .../syncfunctiontriggers): a package URL deployment must (Azure Functions: Deployment technologies, Trigger syncing)", deployScript)
	}
	return p
}
