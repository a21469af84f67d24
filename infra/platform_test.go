package infra_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// platformRule is a property the platform refuses, or needs, on one plan,
// with where that is written down. Azure's type data accepts these
// properties on every plan; the service refuses them at deployment (or
// ignores them) on the plan named.
type platformRule struct {
	Plan     string   // a hosting plan (flex, premium) or a Cosmos DB capacity mode (serverless, autoscale)
	Resource string   // resource type, or appSettings for the function app's settings
	Path     []string // property path in the resource
	Refused  bool     // the plan refuses the property: it must be absent
	Want     []any    // otherwise the values the plan takes (nil: absent is fine); none: any value, but present
	Source   string
}

func (r platformRule) String() string {
	return fmt.Sprintf("%s %s %s", r.Plan, r.Resource, strings.Join(r.Path, "."))
}

// Sources of the rules.
const (
	flexDeprecations = "Azure Functions app settings reference, Flex Consumption plan deprecations"
	flexFtps         = flexDeprecations + "; ARM's refusal (\"site configuration properties (Site.SiteConfig.FtpsState, ...) for Flex Consumption sites is invalid\") quoted in microsoft/azure-pipelines-tasks#21032"
	flexScaleLimit   = flexDeprecations + "; refused as Site.SiteConfig.FunctionAppScaleLimit in microsoft/azure-pipelines-tasks#22254"
	flexPlan         = "Azure Functions Flex Consumption plan hosting, Considerations"
	flexIaC          = "Automate resource deployment for your function app (Flex Consumption): the FC1 plan, functionAppConfig required (\"required for Flex Consumption sites\", Azure/bicep-registry-modules#3389)"
	flexSizes        = "Azure Functions Flex Consumption plan hosting, Instance sizes"
	flexAlwaysOn     = flexDeprecations + " (alwaysOn not valid); Microsoft's Flex templates send alwaysOn: false, so only true is refused"
	premiumSettings  = "Azure Functions app settings reference, FUNCTIONS_WORKER_RUNTIME and FUNCTIONS_EXTENSION_VERSION (custom handlers: custom, runtime ~4)"
	premiumPackage   = "Azure Functions app settings reference, WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID (a user-assigned identity fetches the package URL)"
	premiumPlan      = "Automate resource deployment for your function app (Premium plan): an elastic plan of SKU EP1-EP3, reserved on Linux"
	cosmosPriority   = "Azure Cosmos DB: Priority-based execution, Limitations (not supported for serverless accounts)"
	cosmosServerless = "Azure Cosmos DB serverless account type (no throughput can be passed; no shared throughput database)"
	cosmosAutoscale  = "Azure Cosmos DB: Provision autoscale throughput (a maximum of at least 1000 RU/s)"
)

func flexRefusesSite(path ...string) platformRule {
	return platformRule{Plan: "flex", Resource: "Microsoft.Web/sites", Path: append([]string{"properties"}, path...), Refused: true, Source: flexDeprecations}
}

func flexRefusesSetting(name string) platformRule {
	return platformRule{Plan: "flex", Resource: "appSettings", Path: []string{name}, Refused: true, Source: flexDeprecations}
}

// platformRules are the per-plan rules the Bicep must keep, each with its
// source. docs/operations-azure.md lists them for operators.
var platformRules = append([]platformRule{
	// Flex Consumption: site properties it refuses or ignores.
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "siteConfig", "ftpsState"}, Refused: true, Source: flexFtps},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "siteConfig", "functionAppScaleLimit"}, Refused: true, Source: flexScaleLimit},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "siteConfig", "alwaysOn"}, Want: []any{nil, false}, Source: flexAlwaysOn},
	flexRefusesSite("siteConfig", "use32BitWorkerProcess"),
	flexRefusesSite("siteConfig", "netFrameworkVersion"),
	flexRefusesSite("siteConfig", "linuxFxVersion"),
	flexRefusesSite("siteConfig", "windowsFxVersion"),
	flexRefusesSite("siteConfig", "javaVersion"),
	flexRefusesSite("siteConfig", "powerShellVersion"),
	flexRefusesSite("siteConfig", "preWarmedInstanceCount"),
	flexRefusesSite("siteConfig", "functionsRuntimeScaleMonitoringEnabled"),
	flexRefusesSite("containerSize"),
	flexRefusesSite("dnsConfiguration"),
	flexRefusesSite("reserved"),
	flexRefusesSite("isXenon"),
	flexRefusesSite("vnetRouteAllEnabled"),
	flexRefusesSite("vnetContentShareEnabled"),
	flexRefusesSite("vnetImagePullEnabled"),
	flexRefusesSite("vnetBackupRestoreEnabled"),
	// Flex Consumption: what it needs instead.
	{Plan: "flex", Resource: "Microsoft.Web/serverfarms", Path: []string{"sku", "name"}, Want: []any{"FC1"}, Source: flexIaC},
	{Plan: "flex", Resource: "Microsoft.Web/serverfarms", Path: []string{"sku", "tier"}, Want: []any{"FlexConsumption"}, Source: flexIaC},
	{Plan: "flex", Resource: "Microsoft.Web/serverfarms", Path: []string{"properties", "reserved"}, Want: []any{true}, Source: flexIaC},
	{Plan: "flex", Resource: "Microsoft.Web/serverfarms", Path: []string{"kind"}, Want: []any{"functionapp"}, Source: flexIaC},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "functionAppConfig", "deployment", "storage", "type"}, Want: []any{"blobContainer"}, Source: flexIaC},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "functionAppConfig", "runtime", "name"}, Want: []any{"custom"}, Source: flexIaC},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "functionAppConfig", "runtime", "version"}, Want: []any{"1.0"}, Source: flexIaC + "; the custom runtime's stack data lists version 1.0"},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "functionAppConfig", "scaleAndConcurrency", "instanceMemoryMB"}, Want: []any{512, 2048, 4096}, Source: flexSizes},
	{Plan: "flex", Resource: "Microsoft.Web/sites", Path: []string{"properties", "functionAppConfig", "scaleAndConcurrency", "maximumInstanceCount"}, Source: flexPlan},
	flexRefusesSetting("WEBSITE_TIME_ZONE"),
	flexRefusesSetting("TZ"),
	flexRefusesSetting("WEBSITE_LOAD_CERTIFICATES"),

	// Elastic Premium: a custom handler run from a package URL.
	{Plan: "premium", Resource: "Microsoft.Web/serverfarms", Path: []string{"sku", "name"}, Want: []any{"EP1", "EP2", "EP3"}, Source: premiumPlan},
	{Plan: "premium", Resource: "Microsoft.Web/serverfarms", Path: []string{"kind"}, Want: []any{"elastic"}, Source: premiumPlan},
	{Plan: "premium", Resource: "Microsoft.Web/serverfarms", Path: []string{"properties", "reserved"}, Want: []any{true}, Source: premiumPlan},
	{Plan: "premium", Resource: "appSettings", Path: []string{"FUNCTIONS_WORKER_RUNTIME"}, Want: []any{"custom"}, Source: premiumSettings},
	{Plan: "premium", Resource: "appSettings", Path: []string{"FUNCTIONS_EXTENSION_VERSION"}, Want: []any{"~4"}, Source: premiumSettings},
	{Plan: "premium", Resource: "appSettings", Path: []string{"WEBSITE_RUN_FROM_PACKAGE"}, Source: premiumPackage},
	{Plan: "premium", Resource: "appSettings", Path: []string{"WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID"}, Want: []any{expr("identityId")}, Source: premiumPackage},

	// Cosmos DB capacity modes.
	{Plan: "serverless", Resource: "Microsoft.DocumentDB/databaseAccounts", Path: []string{"properties", "enablePriorityBasedExecution"}, Refused: true, Source: cosmosPriority},
	{Plan: "serverless", Resource: "Microsoft.DocumentDB/databaseAccounts", Path: []string{"properties", "defaultPriorityLevel"}, Refused: true, Source: cosmosPriority},
	{Plan: "serverless", Resource: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: []string{"properties", "options", "autoscaleSettings"}, Refused: true, Source: cosmosServerless},
	{Plan: "serverless", Resource: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: []string{"properties", "options", "throughput"}, Refused: true, Source: cosmosServerless},
	{Plan: "autoscale", Resource: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: []string{"properties", "options", "autoscaleSettings", "maxThroughput"}, Source: cosmosAutoscale},
}, flexRefusedSettings()...)

// flexRefusedSettings are the app settings Flex Consumption replaced with
// functionAppConfig or dropped.
func flexRefusedSettings() []platformRule {
	var rules []platformRule
	for _, name := range []string{
		"FUNCTIONS_WORKER_RUNTIME", "FUNCTIONS_WORKER_RUNTIME_VERSION", "FUNCTIONS_EXTENSION_VERSION",
		"FUNCTIONS_MAX_HTTP_CONCURRENCY", "FUNCTIONS_WORKER_PROCESS_COUNT", "FUNCTIONS_WORKER_DYNAMIC_CONCURRENCY_ENABLED",
		"ENABLE_ORYX_BUILD", "SCM_DO_BUILD_DURING_DEPLOYMENT", "WEBSITE_CONTENTAZUREFILECONNECTIONSTRING",
		"WEBSITE_CONTENTOVERVNET", "WEBSITE_CONTENTSHARE", "WEBSITE_DNS_SERVER", "WEBSITE_MAX_DYNAMIC_APPLICATION_SCALE_OUT",
		"WEBSITE_NODE_DEFAULT_VERSION", "WEBSITE_RUN_FROM_PACKAGE", "WEBSITE_SKIP_CONTENTSHARE_VALIDATION", "WEBSITE_VNET_ROUTE_ALL",
	} {
		rules = append(rules, flexRefusesSetting(name))
	}
	return rules
}

// planSettings are the app settings the rules of a hosting plan require:
// the host settings only that plan takes.
func planSettings(plan string) map[string]bool {
	names := map[string]bool{}
	for _, r := range platformRules {
		if r.Plan == plan && r.Resource == "appSettings" && !r.Refused {
			names[r.Path[0]] = true
		}
	}
	return names
}

// The plans the rules cover, and the Bicep file each one branches in.
var rulePlans = map[string]struct {
	file string
	c    choice
}{
	"flex":       {functionsFile, hosting("flex")},
	"premium":    {functionsFile, hosting("premium")},
	"serverless": {cosmosFile, choice{"capacityMode": "serverless"}},
	"autoscale":  {cosmosFile, choice{"capacityMode": "autoscale"}},
}

// deployedState is what the platform receives under one plan: the resolved
// body of every resource the plan's Bicep file deploys, by type (a resource
// whose condition is false under the plan is left out), and for a hosting
// plan the app's settings under appSettings.
func deployedState(s sources, plan string) (map[string][]map[string]any, []string) {
	var p problems
	rp, ok := rulePlans[plan]
	if !ok {
		p.add("no Bicep file for plan %s", plan)
		return nil, p
	}
	f := parsed(s, rp.file, &p)
	if f == nil {
		return nil, p
	}
	state := map[string][]map[string]any{}
	for _, r := range f.Resources {
		if r.Existing || r.Body == nil {
			continue
		}
		if v, known := planCondition(f, r.Condition, rp.c); r.Condition != "" && known && !v {
			continue
		}
		body, _ := withDefaults(f, resolve(f, r.Body, rp.c)).(map[string]any)
		state[r.Type] = append(state[r.Type], body)
	}
	if _, isHosting := rp.c["hostingPlan"]; isHosting {
		handler, host := appSettings(s, plan, &p)
		all := map[string]any{}
		for _, m := range []map[string]any{handler, host} {
			for k, v := range m {
				all[k] = v
			}
		}
		state["appSettings"] = []map[string]any{all}
	}
	return state, p
}

// checkRules applies the rules of plan to the state deployed under it.
func checkRules(state map[string][]map[string]any, plan string) []string {
	var p problems
	for _, r := range platformRules {
		if r.Plan != plan {
			continue
		}
		bodies := state[r.Resource]
		if len(bodies) == 0 {
			p.add("%s: no %s is deployed to check it against (%s)", r, r.Resource, r.Source)
		}
		for _, body := range bodies {
			got, _ := get(body, r.Path...)
			switch {
			case r.Refused && got != nil:
				p.add("%s = %v: %s refuses it (%s)", r, got, plan, r.Source)
			case !r.Refused && len(r.Want) == 0 && (got == nil || got == ""):
				p.add("%s is not set: %s needs it (%s)", r, plan, r.Source)
			case !r.Refused && len(r.Want) > 0 && !slices.ContainsFunc(r.Want, func(w any) bool { return reflect.DeepEqual(w, got) }):
				p.add("%s = %v, %s takes %v (%s)", r, got, plan, r.Want, r.Source)
			}
		}
	}
	return p
}

// checkPlatform: under the hosting plan, and under every Cosmos DB
// capacity mode, the deployment keeps the platform's rules.
func checkPlatform(s sources, plan string) []string {
	var all []string
	for _, pl := range append([]string{plan}, capacityModes...) {
		state, p := deployedState(s, pl)
		all = append(append(all, p...), checkRules(state, pl)...)
	}
	return all
}

// breakRule sets the property a rule governs to something the plan does not
// take: a value where it refuses one, an unlisted value where it takes a
// few, nothing where it needs one.
func breakRule(state map[string][]map[string]any, r platformRule) {
	for _, body := range state[r.Resource] {
		switch {
		case r.Refused || len(r.Want) > 0:
			set(body, r.Path, "set by the test")
		default:
			set(body, r.Path, nil)
		}
	}
}

// set puts v at path in body, creating objects on the way; nil deletes.
func set(body map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := body[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			body[k] = next
		}
		body = next
	}
	if v == nil {
		delete(body, path[len(path)-1])
		return
	}
	body[path[len(path)-1]] = v
}

// Every rule names its source, and breaking any rule in the state the Bicep
// deploys (per plan) is reported, naming the rule; the state as deployed
// keeps them all.
func TestPlatformRulesCatchEveryBreak(t *testing.T) {
	s := repoSources(t)
	seen := map[string]bool{}
	for _, r := range platformRules {
		if r.Source == "" {
			t.Errorf("%s: no source", r)
		}
		if _, ok := rulePlans[r.Plan]; !ok {
			t.Errorf("%s: unknown plan %s", r, r.Plan)
		}
		if seen[r.String()] {
			t.Errorf("%s: listed twice", r)
		}
		seen[r.String()] = true
	}
	for plan := range rulePlans {
		state, p := deployedState(s, plan)
		for _, msg := range append(p, checkRules(state, plan)...) {
			t.Errorf("as deployed, %s: %s", plan, msg)
		}
	}
	for _, r := range platformRules {
		t.Run(r.String(), func(t *testing.T) {
			state, _ := deployedState(s, r.Plan)
			breakRule(state, r)
			for _, msg := range checkRules(state, r.Plan) {
				if strings.HasPrefix(msg, r.String()+" ") && strings.Contains(msg, r.Source) {
					return
				}
			}
			t.Errorf("breaking the rule was not reported; problems: %q", checkRules(state, r.Plan))
		})
	}
}
