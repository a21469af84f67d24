package infra_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/webapp"
)

// siteWants are the function app's properties under every hosting plan; the
// plan-specific ones follow.
var siteWants = []want{
	{[]string{"properties", "httpsOnly"}, []any{true}},
	{[]string{"properties", "siteConfig", "minTlsVersion"}, []any{"1.2", "1.3"}},
	{[]string{"properties", "siteConfig", "scmMinTlsVersion"}, []any{"1.2", "1.3"}},
	{[]string{"identity", "type"}, []any{"UserAssigned"}},
	{[]string{"kind"}, []any{"functionapp,linux"}},
}

var planWants = map[string][]want{
	"flex": {
		{[]string{"properties", "functionAppConfig", "runtime", "name"}, []any{expr("runtimeName")}},
		{[]string{"properties", "functionAppConfig", "deployment", "storage", "authentication", "type"}, []any{"UserAssignedIdentity"}},
		{[]string{"properties", "functionAppConfig", "scaleAndConcurrency", "maximumInstanceCount"}, []any{expr("maximumInstanceCount")}},
	},
	"premium": {
		{[]string{"properties", "functionAppConfig"}, []any{nil}},
		// Flex refuses ftpsState (platformRules); Premium takes it, and it
		// turns the FTP endpoint off on top of the credential policies.
		{[]string{"properties", "siteConfig", "ftpsState"}, []any{"Disabled"}},
	},
}

var planSKUs = map[string]want{
	"flex":    {[]string{"sku"}, []any{map[string]any{"name": "FC1", "tier": "FlexConsumption"}}},
	"premium": {[]string{"sku"}, []any{map[string]any{"name": "EP1", "tier": "ElasticPremium"}}},
}

// instanceBounds are the scale-out limits each plan allows, by parameter:
// Flex Consumption 1 to 1000 (Flex Consumption plan hosting,
// Considerations), Elastic Premium up to 100 here.
var instanceBounds = map[string][2]int{
	"maximumInstanceCount":        {1, 1000},
	"premiumMaximumInstanceCount": {1, 100},
}

// checkHosting: the hosting plan parameter reaches the app module from the
// environment, the app starts after its role assignments, the plan's SKU
// and the app's posture hold under the plan, basic publishing credentials are
// off for FTP and SCM, and scale-out is bounded.
func checkHosting(s sources, plan string) []string {
	var p problems
	main, fa, pf := parsed(s, mainFile, &p), parsed(s, functionsFile, &p), parsed(s, paramFile, &p)
	if main == nil || fa == nil || pf == nil {
		return p
	}
	for _, f := range []struct {
		file string
		prm  *bicepParam
	}{{mainFile, main.Params["hostingPlan"]}, {functionsFile, fa.Params["hostingPlan"]}} {
		if f.prm == nil {
			p.add("%s: no hostingPlan parameter", f.file)
			continue
		}
		allowed, _ := stringsOf(f.prm.Decorators["allowed"])
		if !reflect.DeepEqual(allowed, hostingPlans) || f.prm.Default != hostingPlans[0] {
			p.add("%s: param hostingPlan allows %v with default %v, want %v with default %s", f.file, allowed, f.prm.Default, hostingPlans, hostingPlans[0])
		}
	}
	if v, _ := pf.Assigns["hostingPlan"].(expr); !strings.Contains(string(v), "readEnvironmentVariable('HOSTING_PLAN'") {
		p.add("%s: hostingPlan must be read from HOSTING_PLAN, got %v", paramFile, pf.Assigns["hostingPlan"])
	}
	app, roles := moduleOf(main, functionsFile), moduleOf(main, "modules/roles.bicep")
	switch {
	case app == nil || roles == nil:
		p.add("%s: modules %s and modules/roles.bicep are both needed", mainFile, functionsFile)
	default:
		if v, _ := get(app.Body, "params", "hostingPlan"); v != expr("hostingPlan") {
			p.add("%s: module %s is given hostingPlan %v, want hostingPlan", mainFile, app.Name, v)
		}
		deps, _ := get(app.Body, "dependsOn")
		if list, _ := deps.([]any); !slices.Contains(list, any(expr(roles.Name))) {
			p.add("%s: module %s must dependsOn %s: the host starts with the identity's storage and Cosmos DB roles", mainFile, app.Name, roles.Name)
		}
	}
	for prm, b := range instanceBounds {
		for _, f := range []struct {
			file string
			bf   *bicepFile
		}{{mainFile, main}, {functionsFile, fa}} {
			x := f.bf.Params[prm]
			if x == nil {
				p.add("%s: no %s parameter", f.file, prm)
				continue
			}
			if x.Decorators["minValue"] != b[0] || x.Decorators["maxValue"] != b[1] {
				p.add("%s: param %s bounds %v..%v, want @minValue(%d) @maxValue(%d)", f.file, prm, x.Decorators["minValue"], x.Decorators["maxValue"], b[0], b[1])
			}
		}
	}

	credentials := map[string]bool{}
	for _, r := range fa.Resources {
		where := fmt.Sprintf("%s: %s", functionsFile, r.Name)
		body, _ := resolve(fa, r.Body, hosting(plan)).(map[string]any)
		switch r.Type {
		case "Microsoft.Web/serverfarms":
			w := planSKUs[plan]
			if got, _ := get(body, w.path...); !reflect.DeepEqual(got, w.value[0]) {
				p.add("%s: sku %v under %s, want %v", where, got, plan, w.value[0])
			}
		case "Microsoft.Web/sites":
			for _, w := range append(slices.Clone(siteWants), planWants[plan]...) {
				if got, _ := get(body, w.path...); !slices.ContainsFunc(w.value, func(v any) bool { return reflect.DeepEqual(v, got) }) {
					p.add("%s: %s = %v under %s, want %v", where, strings.Join(w.path, "."), got, plan, w.value)
				}
			}
		case "Microsoft.Web/sites/basicPublishingCredentialsPolicies":
			allow, _ := get(body, "properties", "allow")
			name, _ := body["name"].(string)
			if allow == false && r.Condition == "" && body["parent"] == expr("site") {
				credentials[name] = true
			}
		}
	}
	for _, name := range []string{"ftp", "scm"} {
		if !credentials[name] {
			p.add("%s: basic publishing credentials for %s must be off: a basicPublishingCredentialsPolicies '%s' resource of the site with allow: false", functionsFile, name, name)
		}
	}
	return p
}

func moduleOf(f *bicepFile, path string) *bicepModule {
	for _, m := range f.Modules {
		if m.Path == path {
			return m
		}
	}
	return nil
}

// checkHostJSON: the host forwards HTTP requests to the handler with their
// original path (every HTTP function depends on it), runs the staged
// handler binary, and the forwarded path of every HTTP function (route
// prefix + route) is one the handler's router serves.
func checkHostJSON(s sources) []string {
	var p problems
	var host struct {
		CustomHandler struct {
			Description struct {
				DefaultExecutablePath string `json:"defaultExecutablePath"`
			} `json:"description"`
			EnableForwardingHTTPRequest *bool `json:"enableForwardingHttpRequest"`
		} `json:"customHandler"`
		Extensions struct {
			HTTP struct {
				RoutePrefix *string `json:"routePrefix"`
			} `json:"http"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal([]byte(s.HostJSON), &host); err != nil {
		p.add("%s: %v", hostJSON, err)
		return p
	}
	if f := host.CustomHandler.EnableForwardingHTTPRequest; f == nil || !*f {
		p.add("%s: customHandler.enableForwardingHttpRequest must be true: the HTTP functions are served by the handler's router at their original path", hostJSON)
	}
	if host.CustomHandler.Description.DefaultExecutablePath != "handler" {
		p.add("%s: customHandler.description.defaultExecutablePath = %q, want handler (the binary make stage builds)", hostJSON, host.CustomHandler.Description.DefaultExecutablePath)
	}
	prefix := "api" // the host's default
	if host.Extensions.HTTP.RoutePrefix != nil {
		prefix = *host.Extensions.HTTP.RoutePrefix
	}
	served := map[string]bool{}
	for _, r := range httpapi.Routes {
		for _, m := range r.Methods() {
			served[m+" "+r.Path] = true
		}
	}
	for fn, b := range s.Functions {
		var doc struct {
			Bindings []struct {
				Type    string   `json:"type"`
				Route   string   `json:"route"`
				Methods []string `json:"methods"`
			} `json:"bindings"`
		}
		if json.Unmarshal(b, &doc) != nil || len(doc.Bindings) == 0 || doc.Bindings[0].Type != "httpTrigger" {
			continue
		}
		if fn == webapp.Function {
			continue // the page's files, not the API's routes: app's manifest test checks them
		}
		trig := doc.Bindings[0]
		// An optional last parameter ({id?}) matches with and without it; a
		// catch-all ({*path}) is the route table's last {path}.
		base := "/"
		if prefix != "" {
			base += prefix + "/"
		}
		full := base + strings.ReplaceAll(strings.ReplaceAll(trig.Route, "?}", "}"), "{*", "{")
		paths := []string{full}
		if i := strings.LastIndex(trig.Route, "/{"); i >= 0 && strings.HasSuffix(trig.Route, "?}") {
			paths = append(paths, base+trig.Route[:i])
		}
		for _, m := range trig.Methods {
			m = strings.ToUpper(m)
			if !slices.ContainsFunc(paths, func(path string) bool { return served[m+" "+path] }) {
				p.add("%s: the host forwards %s %s (route prefix %q + route %q) but the handler does not serve it", fn, m, full, prefix, trig.Route)
			}
		}
	}
	return p
}
