// Package infra_test checks, offline, that the Bicep in infra/bicep and the
// function.json files agree with the Go code: database and container names
// (config defaults), partition key paths per scheme (partition.Paths), the app
// settings the handler and the bindings read, and the security properties of
// the deployment. Each check is a function of file contents, so the tests
// below can feed it a mutated copy and watch it fail.
package infra_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/partition"
)

// Paths relative to the repository root.
const (
	bicepDir      = "infra/bicep"
	mainFile      = "main.bicep"
	paramFile     = "main.bicepparam"
	cosmosFile    = "modules/cosmos.bicep"
	functionsFile = "modules/functionapp.bicep"
	functionsDir  = "functions"
	azureYAML     = "azure.yaml"
	hostJSON      = "host.json"
	deployScript  = "infra/deploy.sh"
)

// sources is everything the checks read: Bicep files by path relative to
// infra/bicep, function.json files by function name, azure.yaml, host.json
// and the Azure CLI deploy script.
type sources struct {
	Bicep        map[string]string
	Functions    map[string][]byte
	AzureYAML    string
	HostJSON     string
	DeployScript string
}

// text returns the field holding one of the other files, by its path.
func (s *sources) text(path string) *string {
	return map[string]*string{azureYAML: &s.AzureYAML, hostJSON: &s.HostJSON, deployScript: &s.DeployScript}[path]
}

func (s sources) clone() sources {
	c := s
	c.Bicep, c.Functions = map[string]string{}, map[string][]byte{}
	for k, v := range s.Bicep {
		c.Bicep[k] = v
	}
	for k, v := range s.Functions {
		c.Functions[k] = slices.Clone(v)
	}
	return c
}

func loadSources(root string) (sources, error) {
	s := sources{Bicep: map[string]string{}, Functions: map[string][]byte{}}
	dir := filepath.Join(root, bicepDir)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".bicep") || strings.HasSuffix(path, ".bicepparam")) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		s.Bicep[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		return s, err
	}
	matches, err := filepath.Glob(filepath.Join(root, functionsDir, "*", "function.json"))
	if err != nil {
		return s, err
	}
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			return s, err
		}
		s.Functions[filepath.Base(filepath.Dir(m))] = b
	}
	for _, path := range []string{azureYAML, hostJSON, deployScript} {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return s, err
		}
		*s.text(path) = string(b)
	}
	return s, nil
}

type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// parsed parses one Bicep file of s, recording a problem when it is absent
// or unreadable.
func parsed(s sources, name string, p *problems) *bicepFile {
	src, ok := s.Bicep[name]
	if !ok {
		p.add("%s/%s: missing", bicepDir, name)
		return nil
	}
	f, err := parseBicep(src)
	if err != nil {
		p.add("%s/%s: %v", bicepDir, name, err)
		return nil
	}
	return f
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// paramRef returns the parameter name behind a value written as `name` or
// `string(name)`.
func paramRef(v any) (string, bool) {
	e, ok := v.(expr)
	if !ok {
		return "", false
	}
	s := string(e)
	if inner, ok := strings.CutPrefix(s, "string("); ok && strings.HasSuffix(inner, ")") {
		s = strings.TrimSuffix(inner, ")")
	}
	return s, identRE.MatchString(s)
}

func literalString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int:
		return strconv.Itoa(v), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// appSettings returns the handler settings (main.bicep var appSettings) and
// the host settings under a hosting plan (modules/functionapp.bicep vars
// hostSettings and planSettings[plan]), and checks that all reach the
// function app.
func appSettings(s sources, plan string, p *problems) (handler, host map[string]any) {
	main, fa := parsed(s, mainFile, p), parsed(s, functionsFile, p)
	if main == nil || fa == nil {
		return nil, nil
	}
	handler, _ = main.Vars["appSettings"].(map[string]any)
	if handler == nil {
		p.add("%s: var appSettings (the handler's settings) is missing or not an object", mainFile)
	}
	host, _ = resolve(fa, expr("union(hostSettings, planSettings[hostingPlan])"), hosting(plan)).(map[string]any)
	if host == nil {
		p.add("%s: vars hostSettings and planSettings.%s (the host's settings) are missing or not objects", functionsFile, plan)
	}
	passed := false
	for _, m := range main.Modules {
		if m.Path == functionsFile {
			v, _ := get(m.Body, "params", "appSettings")
			passed = v == expr("appSettings")
		}
	}
	if !passed {
		p.add("%s: module %s is not given appSettings: appSettings", mainFile, functionsFile)
	}
	merged := false
	for _, r := range fa.Resources {
		if r.Type == "Microsoft.Web/sites/config" && r.Body["name"] == "appsettings" {
			v, _ := get(r.Body, "properties")
			merged = v == expr("union(appSettings, hostSettings, planSettings[hostingPlan])")
		}
	}
	if !merged {
		p.add("%s: no sites/config 'appsettings' resource with properties union(appSettings, hostSettings, planSettings[hostingPlan])", functionsFile)
	}
	return handler, host
}

// requiredSettings are the app settings a deployed app must have: the
// handler's own (see docs/operations.md, Configuration) and the Functions host's
// identity-based connections.
var requiredSettings = []string{
	"CosmosDB__accountEndpoint", "CosmosDB__credential", "CosmosDB__clientId", "AZURE_CLIENT_ID",
	"COSMOS_DATABASE", "COSMOS_TODO_CONTAINER", "COSMOS_AUDIT_CONTAINER", "COSMOS_LEASES_CONTAINER",
	"PARTITION_SCHEME", "SYNTHETIC_BUCKETS", "AUTH_MODE", "VERSION_TTL_SECONDS",
	"AzureWebJobsStorage__credential", "AzureWebJobsStorage__clientId",
	"APPLICATIONINSIGHTS_CONNECTION_STRING", "APPLICATIONINSIGHTS_AUTHENTICATION_STRING",
}

// forbiddenSettings must never be set in Azure.
var forbiddenSettings = map[string]string{
	"COSMOS_KEY":          "the account has local (key) auth disabled; keys are for emulators only",
	"COSMOS_ENDPOINT":     "use CosmosDB__accountEndpoint, which the trigger reads too",
	"CosmosDB":            "a connection string (keys); the account has local auth disabled",
	"AzureWebJobsStorage": "a connection string; use the AzureWebJobsStorage__* identity settings",
	"WEBSITE_CONTENTAZUREFILECONNECTIONSTRING": "an Azure Files connection string needs a storage key; shared keys are disabled",
	"STORE": "the store follows CosmosDB__accountEndpoint",
}

// checkAppSettings: every required setting is set, the handler's settings
// are all known to config.Settings, defaults agree with config defaults,
// identity settings have the right values. What one hosting plan needs or
// refuses is checkPlatform's (platformRules).
func checkAppSettings(s sources, plan string, settings []config.Setting) []string {
	var p problems
	handler, host := appSettings(s, plan, &p)
	main := parsed(s, mainFile, &p)
	if handler == nil || host == nil || main == nil {
		return p
	}
	known := map[string]config.Setting{}
	for _, st := range settings {
		known[st.Name] = st
	}
	all := map[string]any{}
	onlyHere := planSettings(plan)
	for k, v := range host {
		if !onlyHere[k] && !strings.HasPrefix(k, "AzureWebJobsStorage__") && !strings.HasPrefix(k, "APPLICATIONINSIGHTS_") {
			p.add("%s: hostSettings.%s is not a host setting; handler settings belong in %s appSettings", functionsFile, k, mainFile)
		}
		all[k] = v
	}
	for k, v := range handler {
		if _, ok := known[k]; !ok {
			p.add("%s: appSettings.%s is not a setting the handler reads (config.Settings)", mainFile, k)
		}
		if _, dup := all[k]; dup {
			p.add("%s is set both in appSettings and hostSettings", k)
		}
		all[k] = v
	}
	for _, k := range requiredSettings {
		if _, ok := all[k]; !ok {
			p.add("app setting %s is not set by the Bicep", k)
		}
	}
	if _, ok := all["AzureWebJobsStorage__accountName"]; !ok {
		if _, ok := all["AzureWebJobsStorage__blobServiceUri"]; !ok {
			p.add("app settings need AzureWebJobsStorage__accountName or AzureWebJobsStorage__blobServiceUri")
		}
	}
	for k, why := range forbiddenSettings {
		if _, ok := all[k]; ok {
			p.add("app setting %s must not be set in Azure: %s", k, why)
		}
	}
	for _, k := range []string{"CosmosDB__credential", "AzureWebJobsStorage__credential"} {
		if v, ok := all[k]; ok && v != "managedidentity" {
			p.add("app setting %s = %v, want 'managedidentity'", k, v)
		}
	}
	if a, b := all["CosmosDB__clientId"], all["AZURE_CLIENT_ID"]; a != b {
		p.add("CosmosDB__clientId (%v) and AZURE_CLIENT_ID (%v) must name the same identity", a, b)
	}
	// The host authenticates with the identity the function app module is
	// given; the handler's settings must name that same identity.
	if v := host["AzureWebJobsStorage__clientId"]; v != expr("identityClientId") {
		p.add("%s: AzureWebJobsStorage__clientId = %v, want identityClientId", functionsFile, v)
	}
	for _, m := range main.Modules {
		if m.Path != functionsFile {
			continue
		}
		if v, _ := get(m.Body, "params", "identityClientId"); v != all["CosmosDB__clientId"] {
			p.add("%s: CosmosDB__clientId (%v) and the app's identityClientId (%v) must name the same identity", mainFile, all["CosmosDB__clientId"], v)
		}
	}
	if v, _ := all["APPLICATIONINSIGHTS_AUTHENTICATION_STRING"].(string); !strings.Contains(v, "Authorization=AAD") || !strings.Contains(v, "ClientId=") {
		p.add("APPLICATIONINSIGHTS_AUTHENTICATION_STRING = %q, want ClientId=<client id>;Authorization=AAD", v)
	}

	// Defaults: a handler setting fed from a main.bicep parameter must have
	// the same default as config.Settings.
	for k, v := range handler {
		st, ok := known[k]
		if !ok || st.Default == "" {
			continue
		}
		name, ok := paramRef(v)
		if !ok {
			if lit, ok := literalString(v); ok && lit != st.Default {
				p.add("%s: %s = %q, config default is %q", mainFile, k, lit, st.Default)
			}
			continue
		}
		prm, ok := main.Params[name]
		if !ok {
			continue // a variable or module output, not a parameter
		}
		def, ok := literalString(prm.Default)
		if !ok {
			p.add("%s: param %s (app setting %s) has no literal default; config default is %q", mainFile, name, k, st.Default)
		} else if def != st.Default {
			p.add("%s: param %s (app setting %s) defaults to %q, config default is %q", mainFile, name, k, def, st.Default)
		}
	}

	// The deployed default must be secure: empty (the handler then runs
	// entra when it has an issuer, else easyauth), entra or easyauth; never
	// dev.
	if name, ok := paramRef(handler["AUTH_MODE"]); ok {
		if prm := main.Params[name]; prm != nil {
			if def, _ := literalString(prm.Default); def != "" && def != "entra" && def != "easyauth" {
				p.add("%s: param %s defaults to %v, want '', entra or easyauth", mainFile, name, prm.Default)
			}
			allowed, _ := prm.Decorators["allowed"].([]any)
			if len(allowed) == 0 || slices.Contains(allowed, any("dev")) {
				p.add("%s: param %s must be @allowed without dev (dev is refused under the host), got %v", mainFile, name, allowed)
			}
		}
	} else {
		p.add("%s: AUTH_MODE must come from a parameter", mainFile)
	}
	// entra trusts this tenant's v2.0 issuer, and only once the API's client
	// id is known; the audience defaults to that client id.
	issuer, _ := handler["AUTH_ISSUER"].(expr)
	for _, part := range []string{"authClientId", "environment().authentication.loginEndpoint", "tenant().tenantId}/v2.0"} {
		if !strings.Contains(string(issuer), part) {
			p.add("%s: AUTH_ISSUER = %v, want this tenant's v2.0 issuer when authClientId is set (missing %s)", mainFile, handler["AUTH_ISSUER"], part)
		}
	}
	if audience, _ := handler["AUTH_AUDIENCE"].(expr); !strings.Contains(string(audience), "authClientId") {
		p.add("%s: AUTH_AUDIENCE = %v, want authClientId unless overridden", mainFile, handler["AUTH_AUDIENCE"])
	}
	return p
}

// namedResource is a Cosmos database or container resource found through the
// app setting that names it.
type namedResource struct {
	setting  string
	resource *bicepResource
	name     string // resolved name (the main.bicep parameter's default)
}

// cosmosResources follows each name setting from main.bicep appSettings
// through the cosmos module's parameters to the resource whose id it sets,
// and checks the resolved name against config defaults.
func cosmosResources(s sources, settings []config.Setting, p *problems) map[string]namedResource {
	handler, _ := appSettings(s, hostingPlans[0], p)
	main, cosmos := parsed(s, mainFile, p), parsed(s, cosmosFile, p)
	if handler == nil || main == nil || cosmos == nil {
		return nil
	}
	var mod *bicepModule
	for _, m := range main.Modules {
		if m.Path == cosmosFile {
			mod = m
		}
	}
	if mod == nil {
		p.add("%s: no module %s", mainFile, cosmosFile)
		return nil
	}
	params, _ := get(mod.Body, "params")
	modParams, _ := params.(map[string]any)
	defaults := map[string]string{}
	for _, st := range settings {
		defaults[st.Name] = st.Default
	}
	out := map[string]namedResource{}
	for setting, typ := range map[string]string{
		"COSMOS_DATABASE":         "Microsoft.DocumentDB/databaseAccounts/sqlDatabases",
		"COSMOS_TODO_CONTAINER":   "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers",
		"COSMOS_AUDIT_CONTAINER":  "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers",
		"COSMOS_LEASES_CONTAINER": "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers",
	} {
		mainParam, ok := paramRef(handler[setting])
		if !ok || main.Params[mainParam] == nil {
			p.add("%s: appSettings.%s must be a parameter of main.bicep, got %v", mainFile, setting, handler[setting])
			continue
		}
		name, _ := literalString(main.Params[mainParam].Default)
		if name != defaults[setting] {
			p.add("%s: %s (param %s) defaults to %q, config default is %q", mainFile, setting, mainParam, name, defaults[setting])
		}
		modParam := ""
		for k, v := range modParams {
			if v == expr(mainParam) {
				modParam = k
			}
		}
		if modParam == "" {
			p.add("%s: module cosmos is not given %s (the %s name)", mainFile, mainParam, setting)
			continue
		}
		var found *bicepResource
		for _, r := range cosmos.Resources {
			if r.Type != typ || r.Existing {
				continue
			}
			id, _ := get(r.Body, "properties", "resource", "id")
			if id == expr(modParam) {
				if r.Body["name"] != expr(modParam) {
					p.add("%s: resource %s has id %s but name %v", cosmosFile, r.Name, modParam, r.Body["name"])
				}
				found = r
			}
		}
		if found == nil {
			p.add("%s: no %s resource with id %s (%s)", cosmosFile, typ, modParam, setting)
			continue
		}
		out[setting] = namedResource{setting: setting, resource: found, name: name}
	}
	return out
}

// checkNames: database and container names agree with config defaults and
// reach the resources that create them.
func checkNames(s sources, settings []config.Setting) []string {
	var p problems
	cosmosResources(s, settings, &p)
	return p
}

// partitionKeyOf resolves a container's partitionKey: an object literal or a
// variable of the cosmos module.
func partitionKeyOf(cosmos *bicepFile, r *bicepResource) (map[string]any, string) {
	v, _ := get(r.Body, "properties", "resource", "partitionKey")
	switch v := v.(type) {
	case map[string]any:
		return v, ""
	case expr:
		if pk, ok := cosmos.Vars[string(v)].(map[string]any); ok {
			return pk, ""
		}
		return nil, string(v)
	}
	return nil, fmt.Sprint(v)
}

func stringsOf(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func checkPartitionKey(p *problems, where string, pk map[string]any, want []string) {
	paths, ok := stringsOf(pk["paths"])
	if !ok || !reflect.DeepEqual(paths, want) {
		p.add("%s: partition key paths %v, want %v", where, pk["paths"], want)
	}
	kind, version := pk["kind"], pk["version"]
	if len(want) > 1 {
		if kind != "MultiHash" || version != 2 {
			p.add("%s: %d-level (hierarchical) key needs kind MultiHash and version 2, got %v and %v", where, len(want), kind, version)
		}
	} else if kind != "Hash" {
		p.add("%s: single-path key needs kind Hash, got %v", where, kind)
	}
}

// checkPartitionKeys: the scheme-to-paths map in cosmos.bicep equals
// partition.Paths for every scheme, the todo container indexes it by the
// scheme parameter (whose allowed values are partition.Names), and the audit
// and leases containers use partition.AuditKeyPaths / LeaseKeyPaths.
func checkPartitionKeys(s sources, settings []config.Setting) []string {
	var p problems
	res := cosmosResources(s, settings, &p)
	cosmos, main := parsed(s, cosmosFile, &p), parsed(s, mainFile, &p)
	if res == nil || cosmos == nil || main == nil {
		return p
	}
	byScheme, _ := cosmos.Vars["todoPartitionKeys"].(map[string]any)
	if byScheme == nil {
		p.add("%s: var todoPartitionKeys (scheme -> partition key) is missing or not an object", cosmosFile)
		return p
	}
	var schemes []string
	for k := range byScheme {
		schemes = append(schemes, k)
	}
	sort.Strings(schemes)
	want := slices.Sorted(slices.Values(partition.Names))
	if !reflect.DeepEqual(schemes, want) {
		p.add("%s: todoPartitionKeys has schemes %v, partition.Names has %v", cosmosFile, schemes, want)
	}
	for _, scheme := range partition.Names {
		pk, _ := byScheme[scheme].(map[string]any)
		paths, err := partition.Paths(scheme)
		if err != nil {
			p.add("partition.Paths(%q): %v", scheme, err)
			continue
		}
		if pk == nil {
			continue
		}
		checkPartitionKey(&p, fmt.Sprintf("%s: todoPartitionKeys.%s", cosmosFile, scheme), pk, paths)
	}

	if todo, ok := res["COSMOS_TODO_CONTAINER"]; ok {
		v, _ := get(todo.resource.Body, "properties", "resource", "partitionKey")
		e, _ := v.(expr)
		schemeParam, ok := strings.CutPrefix(string(e), "todoPartitionKeys[")
		schemeParam, ok2 := strings.CutSuffix(schemeParam, "]")
		if !ok || !ok2 || cosmos.Params[schemeParam] == nil {
			p.add("%s: todo container partitionKey must be todoPartitionKeys[<scheme param>], got %v", cosmosFile, v)
		} else {
			allowed, _ := stringsOf(cosmos.Params[schemeParam].Decorators["allowed"])
			if !reflect.DeepEqual(slices.Sorted(slices.Values(allowed)), want) {
				p.add("%s: param %s allows %v, want %v", cosmosFile, schemeParam, allowed, want)
			}
			// main.bicep's scheme parameter: allowed values and default.
			var mainParam string
			for _, m := range main.Modules {
				if m.Path == cosmosFile {
					v, _ := get(m.Body, "params", schemeParam)
					mainParam, _ = paramRef(v)
				}
			}
			if prm := main.Params[mainParam]; prm == nil {
				p.add("%s: module cosmos param %s must be a main.bicep parameter", mainFile, schemeParam)
			} else {
				allowed, _ := stringsOf(prm.Decorators["allowed"])
				if !reflect.DeepEqual(slices.Sorted(slices.Values(allowed)), want) {
					p.add("%s: param %s allows %v, want %v", mainFile, mainParam, allowed, want)
				}
				if prm.Default != partition.Names[0] {
					p.add("%s: param %s defaults to %v, want %s (partition.Names[0])", mainFile, mainParam, prm.Default, partition.Names[0])
				}
			}
		}
		if ttl, _ := get(todo.resource.Body, "properties", "resource", "defaultTtl"); ttl != -1 {
			p.add("%s: todo container defaultTtl = %v, want -1 (TTL on, per-item ttl on version documents)", cosmosFile, ttl)
		}
	}
	for setting, want := range map[string][]string{
		"COSMOS_AUDIT_CONTAINER":  partition.AuditKeyPaths,
		"COSMOS_LEASES_CONTAINER": partition.LeaseKeyPaths,
	} {
		r, ok := res[setting]
		if !ok {
			continue
		}
		pk, bad := partitionKeyOf(cosmos, r.resource)
		if pk == nil {
			p.add("%s: container %s: partitionKey %s is not an object literal or a variable", cosmosFile, r.resource.Name, bad)
			continue
		}
		checkPartitionKey(&p, fmt.Sprintf("%s: container %s (%s)", cosmosFile, r.resource.Name, setting), pk, want)
	}
	if audit, ok := res["COSMOS_AUDIT_CONTAINER"]; ok {
		if ttl, ok := get(audit.resource.Body, "properties", "resource", "defaultTtl"); ok {
			p.add("%s: audit container sets defaultTtl %v; audit history must not expire", cosmosFile, ttl)
		}
	}
	return p
}

var settingExprRE = regexp.MustCompile(`%([^%]*)%`)

// checkFunctions: every %NAME% in a function.json is an app setting the
// Bicep sets, every Cosmos DB binding's connection has
// <connection>__accountEndpoint, and no binding tries to create containers
// (a data-plane identity cannot).
func checkFunctions(s sources, plan string) []string {
	var p problems
	handler, host := appSettings(s, plan, &p)
	if handler == nil || host == nil {
		return p
	}
	if len(s.Functions) == 0 {
		p.add("no %s/*/function.json files", functionsDir)
	}
	set := func(name string) bool {
		_, a := handler[name]
		_, b := host[name]
		return a || b
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range s.Functions {
			if !yield(k) {
				return
			}
		}
	})
	for _, fn := range names {
		where := fmt.Sprintf("%s/%s/function.json", functionsDir, fn)
		var doc struct {
			Bindings []map[string]any `json:"bindings"`
			Retry    *struct {
				Strategy      string `json:"strategy"`
				MaxRetryCount int    `json:"maxRetryCount"`
			} `json:"retry"`
		}
		if err := json.Unmarshal(s.Functions[fn], &doc); err != nil {
			p.add("%s: %v", where, err)
			continue
		}
		// A triggered run that meets a cold or failing instance is lost
		// unless the host retries it; HTTP callers retry themselves.
		if len(doc.Bindings) > 0 && doc.Bindings[0]["type"] != "httpTrigger" {
			switch r := doc.Retry; {
			case r == nil:
				p.add("%s: a %v function needs a retry policy", where, doc.Bindings[0]["type"])
			case r.Strategy != "fixedDelay" && r.Strategy != "exponentialBackoff":
				p.add("%s: retry strategy %q is not fixedDelay or exponentialBackoff", where, r.Strategy)
			case r.MaxRetryCount < 1:
				p.add("%s: retry maxRetryCount %d retries nothing", where, r.MaxRetryCount)
			}
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				for _, m := range settingExprRE.FindAllStringSubmatch(v, -1) {
					if !set(m[1]) {
						p.add("%s: %%%s%% is not an app setting the Bicep sets", where, m[1])
					}
				}
			case map[string]any:
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		for _, b := range doc.Bindings {
			walk(b)
			typ, _ := b["type"].(string)
			if !strings.EqualFold(typ, "cosmosDBTrigger") && !strings.EqualFold(typ, "cosmosDB") {
				continue
			}
			for _, key := range []string{"connection", "leaseConnection"} {
				conn, present := b[key].(string)
				if !present {
					if key == "leaseConnection" {
						continue
					}
					conn = "CosmosDB" // the extension's default
				}
				if set(conn) {
					p.add("%s: %s %q is set as an app setting, so it is read as a connection string (keys); remove it and use %s__accountEndpoint", where, key, conn, conn)
				}
				if !set(conn + "__accountEndpoint") {
					p.add("%s: %s %q needs app setting %s__accountEndpoint, which the Bicep does not set", where, key, conn, conn)
				} else if !set(conn+"__credential") || !set(conn+"__clientId") {
					p.add("%s: %s %q needs %s__credential and %s__clientId for the user-assigned identity", where, key, conn, conn, conn)
				}
			}
			for _, key := range []string{"createLeaseContainerIfNotExists", "createIfNotExists"} {
				if v, ok := b[key]; ok && fmt.Sprint(v) == "true" {
					p.add("%s: %s must be false: containers are created by the Bicep, an identity cannot create them", where, key)
				}
			}
		}
	}
	return p
}

// secretRE matches what must never appear in Bicep: key listing functions
// and key-bearing connection strings.
var secretRE = regexp.MustCompile(`(?i)\blist[A-Za-z]*(Keys|ConnectionStrings|Secrets|Sas)\s*\(|\.list[A-Za-z]*\(|AccountKey=|SharedAccessKey|primaryMasterKey|secondaryMasterKey|primaryKey|@secure\(\)`)

var secretNameRE = regexp.MustCompile(`(?i)key|secret|password|connection_?string|\bsas\b|token`)

// want is one security property of a resource type.
type want struct {
	path  []string
	value []any // acceptable values
}

var securityProperties = map[string][]want{
	"Microsoft.DocumentDB/databaseAccounts": {
		{[]string{"properties", "disableLocalAuth"}, []any{true}},
		{[]string{"properties", "minimalTlsVersion"}, []any{"Tls12"}},
	},
	"Microsoft.Storage/storageAccounts": {
		{[]string{"properties", "allowSharedKeyAccess"}, []any{false}},
		{[]string{"properties", "allowBlobPublicAccess"}, []any{false}},
		{[]string{"properties", "minimumTlsVersion"}, []any{"TLS1_2"}},
		{[]string{"properties", "supportsHttpsTrafficOnly"}, []any{true}},
	},
	"Microsoft.Insights/components": {
		{[]string{"properties", "DisableLocalAuth"}, []any{true}},
	},
}

// Built-in role definitions the deployment must assign.
var requiredRoles = map[string]string{
	"b7e6dc6d-f1e8-4753-8033-0f276bb0955b": "Storage Blob Data Owner",
	"974c5e8b-45b9-4653-ba55-5f855dd0fb88": "Storage Queue Data Contributor",
	"0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3": "Storage Table Data Contributor",
	"3913510d-42f4-4e42-8a64-420c390055eb": "Monitoring Metrics Publisher",
	"00000000-0000-0000-0000-000000000002": "Cosmos DB Built-in Data Contributor",
}

// checkSecurity: the security properties of each resource type, no key
// listing or key-bearing strings anywhere, no secrets in outputs, the roles
// the app needs, and Cosmos data roles scoped to the database.
func checkSecurity(s sources) []string {
	var p problems
	seen := map[string]bool{}
	files := slices.Sorted(func(yield func(string) bool) {
		for k := range s.Bicep {
			if !yield(k) {
				return
			}
		}
	})
	sqlRoleAssignments := 0
	assigned := map[string]bool{}
	for _, name := range files {
		src := stripComments(s.Bicep[name])
		for _, m := range secretRE.FindAllString(src, -1) {
			p.add("%s/%s: %q: no keys, key listing or key-bearing connection strings", bicepDir, name, m)
		}
		if strings.HasSuffix(name, ".bicepparam") {
			continue
		}
		f, err := parseBicep(s.Bicep[name])
		if err != nil {
			p.add("%s/%s: %v", bicepDir, name, err)
			continue
		}
		for _, o := range f.Outputs {
			if secretNameRE.MatchString(o.Name) || secretNameRE.MatchString(o.Raw) {
				p.add("%s/%s: output %s = %s looks like a secret; outputs are names and URLs only", bicepDir, name, o.Name, o.Raw)
			}
		}
		for _, r := range f.Resources {
			if r.Type == "Microsoft.Authorization/roleAssignments" || r.Type == "Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments" {
				for _, id := range roleIDs(f, r) {
					assigned[id] = true
				}
			}
			if r.Type == "Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments" {
				sqlRoleAssignments++
				scope, _ := get(r.Body, "properties", "scope")
				if !strings.Contains(fmt.Sprint(scope), "/dbs/") {
					p.add("%s/%s: %s scope %v: Cosmos data roles are scoped to the database (/dbs/<name>)", bicepDir, name, r.Name, scope)
				}
			}
			wants, ok := securityProperties[r.Type]
			if !ok || r.Existing {
				continue
			}
			seen[r.Type] = true
			for _, w := range wants {
				got, _ := get(r.Body, w.path...)
				if !slices.Contains(w.value, got) {
					p.add("%s/%s: %s %s = %v, want %v", bicepDir, name, r.Name, strings.Join(w.path, "."), got, w.value)
				}
			}
		}
	}
	for typ := range securityProperties {
		if !seen[typ] {
			p.add("no %s resource in %s", typ, bicepDir)
		}
	}
	for id, role := range requiredRoles {
		if !assigned[id] {
			p.add("%s: no role assignment of %s (%s)", bicepDir, role, id)
		}
	}
	if sqlRoleAssignments == 0 {
		p.add("%s: no Cosmos DB sqlRoleAssignments", bicepDir)
	}
	return p
}

var guidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// roleIDs returns the role definition ids a role assignment resource (or a
// for-expression of them) refers to, through the file's variables.
func roleIDs(f *bicepFile, r *bicepResource) []string {
	var ids []string
	var resolve func(v any)
	resolve = func(v any) {
		switch v := v.(type) {
		case string: // may interpolate variables: '${id}/sqlRoleDefinitions/${role}'
			resolve(expr(v))
		case expr:
			ids = append(ids, guidRE.FindAllString(string(v), -1)...)
			for _, word := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`).FindAllString(string(v), -1) {
				if x, ok := f.Vars[word]; ok {
					resolve(x)
				}
			}
		case []any:
			for _, x := range v {
				resolve(x)
			}
		}
	}
	if r.Body == nil { // for-expression: the loop source and the body
		resolve(expr(r.Raw))
	} else {
		v, _ := get(r.Body, "properties", "roleDefinitionId")
		resolve(v)
	}
	return ids
}

// checkParamFile: main.bicepparam uses main.bicep, sets only its parameters
// and every parameter that has no default.
func checkParamFile(s sources) []string {
	var p problems
	main, pf := parsed(s, mainFile, &p), parsed(s, paramFile, &p)
	if main == nil || pf == nil {
		return p
	}
	if pf.Using != mainFile {
		p.add("%s: using %q, want %q", paramFile, pf.Using, mainFile)
	}
	for name := range pf.Assigns {
		if main.Params[name] == nil {
			p.add("%s: param %s is not a parameter of %s", paramFile, name, mainFile)
		}
	}
	for name, prm := range main.Params {
		if _, ok := pf.Assigns[name]; !ok && !prm.HasDefault {
			p.add("%s: required parameter %s of %s is not set", paramFile, name, mainFile)
		}
	}
	return p
}

// checkAzureYAML: azd provisions infra/bicep and deploys the staged dist/
// folder as a custom-language function service whose name is the
// azd-service-name tag the function app carries.
func checkAzureYAML(s sources) []string {
	var p problems
	fa := parsed(s, functionsFile, &p)
	if fa == nil {
		return p
	}
	for _, line := range []string{"path: infra/bicep", "host: function", "language: custom", "dist: bin/app.zip", "run: make package"} {
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(line) + `\s*$`).MatchString(s.AzureYAML) {
			p.add("%s: no line %q", azureYAML, line)
		}
	}
	if prm := fa.Params["azdServiceName"]; prm == nil {
		p.add("%s: no azdServiceName parameter", functionsFile)
	} else if svc, _ := prm.Default.(string); !regexp.MustCompile(`(?m)^services:\s*\n\s+` + regexp.QuoteMeta(svc) + `:\s*$`).MatchString(s.AzureYAML) {
		p.add("%s: the service must be named %q (the azd-service-name tag of the function app)", azureYAML, svc)
	}
	return p
}

// ---- tests ----

func repoSources(t *testing.T) sources {
	t.Helper()
	s, err := loadSources("..")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checks run once per hosting plan; a check that does not depend on the
// plan ignores it.
var checks = []struct {
	name string
	run  func(s sources, plan string) []string
}{
	{"names", func(s sources, _ string) []string { return checkNames(s, config.Settings) }},
	{"partition keys", func(s sources, _ string) []string { return checkPartitionKeys(s, config.Settings) }},
	{"app settings", func(s sources, plan string) []string { return checkAppSettings(s, plan, config.Settings) }},
	{"functions", checkFunctions},
	{"security", func(s sources, _ string) []string { return checkSecurity(s) }},
	{"indexing", func(s sources, _ string) []string { return checkIndexing(s) }},
	{"hosting", checkHosting},
	{"host.json", func(s sources, _ string) []string { return checkHostJSON(s) }},
	{"param file", func(s sources, _ string) []string { return checkParamFile(s) }},
	{"azure.yaml", func(s sources, _ string) []string { return checkAzureYAML(s) }},
	{"telemetry", checkTelemetry},
	{"platform rules", checkPlatform},
	{"hot partitions", func(s sources, _ string) []string { return checkHotPartitions(s) }},
	{"priority", func(s sources, _ string) []string { return checkPriority(s) }},
	{"alerts", func(s sources, _ string) []string { return checkAlerts(s) }},
	{"deploy script", func(s sources, _ string) []string { return checkDeployScript(s) }},
}

// runChecks runs every check under every hosting plan.
func runChecks(s sources) []string {
	var all []string
	for _, plan := range hostingPlans {
		for _, c := range checks {
			for _, msg := range c.run(s, plan) {
				all = append(all, fmt.Sprintf("[%s] %s: %s", plan, c.name, msg))
			}
		}
	}
	return all
}

// checkTelemetry: the host sends its own telemetry and the handler's log
// lines to Application Insights through OpenTelemetry (with the managed
// identity, which checkAppSettings and the roles check cover), and an OTLP
// endpoint set at deployment reaches the handler.
func checkTelemetry(s sources, plan string) []string {
	var p problems
	var host struct {
		TelemetryMode string `json:"telemetryMode"`
	}
	if err := json.Unmarshal([]byte(s.HostJSON), &host); err != nil {
		p.add("%s: %v", hostJSON, err)
	} else if host.TelemetryMode != "OpenTelemetry" {
		p.add("%s: telemetryMode %q, want OpenTelemetry", hostJSON, host.TelemetryMode)
	}
	handler, _ := appSettings(s, plan, &p)
	if _, ok := paramRef(handler["OTEL_EXPORTER_OTLP_ENDPOINT"]); !ok {
		p.add("%s: appSettings.OTEL_EXPORTER_OTLP_ENDPOINT must come from a parameter", mainFile)
	}
	return p
}

func TestBicepAgreesWithCode(t *testing.T) {
	s := repoSources(t)
	if len(s.Bicep) < 2 {
		t.Fatalf("expected Bicep files under %s, found %d", bicepDir, len(s.Bicep))
	}
	for _, plan := range hostingPlans {
		for _, c := range checks {
			t.Run(plan+"/"+c.name, func(t *testing.T) {
				for _, msg := range c.run(s, plan) {
					t.Error(msg)
				}
			})
		}
	}
}

func TestEveryBicepFileParses(t *testing.T) {
	for name, src := range repoSources(t).Bicep {
		f, err := parseBicep(src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.HasSuffix(name, ".bicep") && len(f.Params)+len(f.Resources)+len(f.Modules) == 0 {
			t.Errorf("%s: no declarations found", name)
		}
	}
}

// mutation edits one file; the check must then report a problem containing
// want.
type mutation struct {
	name      string
	file      string // Bicep path, "fn:<Function>" for a function.json, azureYAML, hostJSON or deployScript
	old, new  string
	wantMatch string
}

var mutations = []mutation{
	// Names drift from config defaults.
	{"database name", mainFile, "param cosmosDatabaseName string = 'todoapp'", "param cosmosDatabaseName string = 'todo-app'", "COSMOS_DATABASE"},
	{"todo container name", mainFile, "param todoContainerName string = 'todos'", "param todoContainerName string = 'todo'", "COSMOS_TODO_CONTAINER"},
	{"leases container not created from its setting", cosmosFile, "      id: leasesContainerName\n", "      id: 'leases'\n", "COSMOS_LEASES_CONTAINER"},
	{"app setting renamed", mainFile, "  COSMOS_AUDIT_CONTAINER: auditContainerName", "  COSMOS_AUDIT: auditContainerName", "COSMOS_AUDIT"},
	{"default drifts", mainFile, "param syntheticBuckets int = 8", "param syntheticBuckets int = 16", "SYNTHETIC_BUCKETS"},
	{"insecure auth default", mainFile, "param authMode string = ''", "param authMode string = 'single'", "want '', entra or easyauth"},
	{"dev auth allowed", mainFile, "  'easyauth'\n  'single'\n])", "  'easyauth'\n  'single'\n  'dev'\n])", "without dev"},
	{"issuer of every tenant", mainFile, "${tenant().tenantId}/v2.0", "common/v2.0", "AUTH_ISSUER"},
	{"audience not the API", mainFile, "AUTH_AUDIENCE: empty(authAudience) ? authClientId : authAudience", "AUTH_AUDIENCE: authAudience", "AUTH_AUDIENCE"},
	{"key setting", mainFile, "  LOG_LEVEL: logLevel\n", "  LOG_LEVEL: logLevel\n  COSMOS_KEY: 'x'\n", "COSMOS_KEY"},
	{"worker runtime on Flex", functionsFile, "  AzureWebJobsStorage__credential: 'managedidentity'\n", "  AzureWebJobsStorage__credential: 'managedidentity'\n  FUNCTIONS_WORKER_RUNTIME: 'custom'\n", "FUNCTIONS_WORKER_RUNTIME"},
	{"storage identity", functionsFile, "  AzureWebJobsStorage__credential: 'managedidentity'\n", "", "AzureWebJobsStorage__credential"},
	{"AAD-only App Insights", functionsFile, ";Authorization=AAD'", "'", "Authorization=AAD"},
	// Partition keys drift from partition.Paths.
	{"hierarchical paths", cosmosFile, "      '/userId'\n      '/category'\n", "      '/userId'\n      '/categoryId'\n", "todoPartitionKeys.hierarchical"},
	{"hierarchical kind", cosmosFile, "    kind: 'MultiHash'", "    kind: 'Hash'", "MultiHash"},
	{"synthetic path", cosmosFile, "      '/partitionKey'", "      '/pk'", "todoPartitionKeys.synthetic"},
	{"unknown scheme", cosmosFile, "  synthetic: {", "  modulo: {", "schemes"},
	{"audit key", cosmosFile, "    '/entityKey'", "    '/entityId'", "COSMOS_AUDIT_CONTAINER"},
	{"lease key", cosmosFile, "    '/id'\n", "    '/leaseId'\n", "COSMOS_LEASES_CONTAINER"},
	{"todo TTL off", cosmosFile, "      defaultTtl: -1", "      defaultTtl: 3600", "defaultTtl"},
	{"scheme param", mainFile, "  'category'\n  'synthetic'\n])\nparam partitionScheme", "  'category'\n])\nparam partitionScheme", "param partitionScheme allows"},
	// function.json drift.
	{"trigger setting name", "fn:AuditTrigger", "%COSMOS_DATABASE%", "%COSMOS_DB%", "%COSMOS_DB%"},
	{"trigger connection", "fn:AuditTrigger", `"connection": "CosmosDB"`, `"connection": "Cosmos"`, "Cosmos__accountEndpoint"},
	{"trigger creates leases", "fn:AuditTrigger", `"createLeaseContainerIfNotExists": false`, `"createLeaseContainerIfNotExists": true`, "createLeaseContainerIfNotExists"},
	// Security properties.
	{"cosmos local auth", cosmosFile, "disableLocalAuth: true", "disableLocalAuth: false", "disableLocalAuth"},
	{"cosmos TLS", cosmosFile, "minimalTlsVersion: 'Tls12'", "minimalTlsVersion: 'Tls'", "minimalTlsVersion"},
	{"shared keys", "modules/storage.bicep", "allowSharedKeyAccess: false", "allowSharedKeyAccess: true", "allowSharedKeyAccess"},
	{"storage TLS", "modules/storage.bicep", "minimumTlsVersion: 'TLS1_2'", "minimumTlsVersion: 'TLS1_0'", "minimumTlsVersion"},
	{"https only", functionsFile, "httpsOnly: true", "httpsOnly: false", "httpsOnly"},
	{"app TLS", functionsFile, "minTlsVersion: '1.2'", "minTlsVersion: '1.0'", "minTlsVersion"},
	{"FTPS", functionsFile, "ftpsState: 'Disabled'", "ftpsState: 'FtpsOnly'", "ftpsState"},
	{"App Insights local auth", "modules/monitoring.bicep", "DisableLocalAuth: true", "DisableLocalAuth: false", "DisableLocalAuth"},
	{"listKeys", "modules/cosmos.bicep", "output endpoint string = account.properties.documentEndpoint", "output endpoint string = account.listKeys().primaryMasterKey", "listKeys"},
	{"secret output", mainFile, "output COSMOS_ENDPOINT string = cosmos.outputs.endpoint", "output COSMOS_KEY string = cosmos.outputs.endpoint", "COSMOS_KEY"},
	{"account-wide data role", "modules/roles.bicep", "scope: '${cosmos.id}/dbs/${databaseName}'\n  }\n}\n\nresource deployer", "scope: cosmos.id\n  }\n}\n\nresource deployer", "/dbs/"},
	{"missing role", "modules/roles.bicep", "  storageQueueDataContributor\n  storageTableDataContributor\n]", "  storageTableDataContributor\n]", "Storage Queue Data Contributor"},
	// Indexing policies drift from the Go policies.
	{"todo index loses a path", cosmosFile, "          {\n            path: '/isCompleted/?'\n          }\n", "", "isCompleted"},
	{"audit index loses version", cosmosFile, "          {\n            path: '/version/?'\n          }\n", "", "version"},
	{"todo indexes everything", cosmosFile, "            path: '/userId/?'", "            path: '/*'", "(nil: every path)"},
	{"audit index without /* excluded", cosmosFile, "            path: '/dateCreatedUtc/?'\n          }\n        ]\n        excludedPaths: [\n          {\n            path: '/*'", "            path: '/dateCreatedUtc/?'\n          }\n        ]\n        excludedPaths: [\n          {\n            path: '/entity/*'", "does not exclude /*"},
	// Deployment posture and hosting plans.
	{"app starts before its roles", mainFile, "  dependsOn: [\n    roles\n  ]\n", "", "dependsOn"},
	{"reconcile without retry", "fn:Reconcile", `"retry"`, `"retries"`, "needs a retry policy"},
	{"reconcile retries nothing", "fn:Reconcile", `"maxRetryCount": 4`, `"maxRetryCount": 0`, "retries nothing"},
	{"trigger retry strategy", "fn:AuditTrigger", `"strategy": "exponentialBackoff"`, `"strategy": "linear"`, "not fixedDelay"},
	{"unbounded flex scale-out", mainFile, "@minValue(1)\n@maxValue(1000)\nparam maximumInstanceCount", "param maximumInstanceCount", "maximumInstanceCount bounds"},
	{"flex scale-out over 1000", functionsFile, "@maxValue(1000)\nparam maximumInstanceCount", "@maxValue(2000)\nparam maximumInstanceCount", "maximumInstanceCount bounds"},
	{"SCM TLS", functionsFile, "scmMinTlsVersion: '1.2'", "scmMinTlsVersion: '1.0'", "scmMinTlsVersion"},
	{"FTP basic credentials", functionsFile, "  name: 'ftp'\n  properties: {\n    allow: false", "  name: 'ftp'\n  properties: {\n    allow: true", "credentials for ftp"},
	{"SCM basic credentials", functionsFile, "  name: 'scm'\n", "  name: 'scm-off'\n", "credentials for scm"},
	{"no forwarding", hostJSON, `"enableForwardingHttpRequest": true`, `"enableForwardingHttpRequest": false`, "enableForwardingHttpRequest"},
	{"forwarded paths", hostJSON, `"routePrefix": ""`, `"routePrefix": "v1"`, "does not serve"},
	{"executable", hostJSON, `"defaultExecutablePath": "handler"`, `"defaultExecutablePath": "main"`, "defaultExecutablePath"},
	{"flex SKU", functionsFile, "    name: 'FC1'", "    name: 'Y1'", "under flex"},
	{"premium SKU", functionsFile, "    name: 'EP1'", "    name: 'P1v3'", "under premium"},
	{"plan default", mainFile, "param hostingPlan string = 'flex'", "param hostingPlan string = 'premium'", "param hostingPlan allows"},
	{"plan not from the environment", paramFile, "readEnvironmentVariable('HOSTING_PLAN', 'flex')", "'flex'", "HOSTING_PLAN"},
	{"plan not passed to the app", mainFile, "    hostingPlan: hostingPlan\n", "", "given hostingPlan"},
	{"premium package without identity", functionsFile, "WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID: identityId", "WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID: ''", "WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID"},
	{"premium without runtime", functionsFile, "    FUNCTIONS_WORKER_RUNTIME: 'custom'\n", "", "premium appSettings FUNCTIONS_WORKER_RUNTIME = <nil>"},
	{"premium with Azure Files", functionsFile, "    FUNCTIONS_EXTENSION_VERSION: '~4'\n", "    FUNCTIONS_EXTENSION_VERSION: '~4'\n    WEBSITE_CONTENTAZUREFILECONNECTIONSTRING: 'x'\n", "WEBSITE_CONTENTAZUREFILECONNECTIONSTRING"},
	{"premium given Flex config", functionsFile, "functionAppConfig: isFlex ? flexAppConfig : null", "functionAppConfig: flexAppConfig", "functionAppConfig = map"},
	{"premium loses TLS", functionsFile, "siteConfig: isFlex ? siteSecurity : union(siteSecurity, premiumSiteConfig)", "siteConfig: isFlex ? siteSecurity : premiumSiteConfig", "minTlsVersion = <nil> under premium"},
	// Deploy paths.
	{"param file sets unknown param", paramFile, "param partitionScheme =", "param scheme =", "not a parameter"},
	{"azd language", azureYAML, "language: custom", "language: go", "language: custom"},
	// Telemetry wiring.
	{"host telemetry mode", hostJSON, `"telemetryMode": "OpenTelemetry"`, `"telemetryMode": "default"`, "telemetryMode"},
	{"OTLP endpoint not passed on", mainFile, "  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint\n", "", "OTEL_EXPORTER_OTLP_ENDPOINT"},
	// Platform rules broken in the source (every rule is also broken in
	// the deployed state, in TestPlatformRulesCatchEveryBreak).
	{"ftpsState on Flex", functionsFile, "  http20Enabled: true\n", "  http20Enabled: true\n  ftpsState: 'Disabled'\n", "flex Microsoft.Web/sites properties.siteConfig.ftpsState = Disabled: flex refuses it"},
	{"scale limit on Flex", functionsFile, "  http20Enabled: true\n", "  http20Enabled: true\n  functionAppScaleLimit: 10\n", "flex Microsoft.Web/sites properties.siteConfig.functionAppScaleLimit"},
	{"premium keeps FTP", functionsFile, "  ftpsState: 'Disabled'\n", "", "ftpsState = <nil> under premium"},
	{"throughput on serverless", cosmosFile, "var databaseOptions = capacityMode == 'autoscale' ? autoscaleOptions : {}", "var databaseOptions = autoscaleOptions", "serverless Microsoft.DocumentDB/databaseAccounts/sqlDatabases properties.options.autoscaleSettings"},
	{"premium without trigger sync", deployScript, "\t\taz rest --method post --url \"$id/syncfunctiontriggers?api-version=2025-03-01\" --output none\n", "", "does not sync triggers"},
	// Hot partitions: Cosmos DB's partition-key RU log and the saved query.
	{"no diagnostic setting", cosmosFile, "resource diagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview'", "resource diagnostics 'Microsoft.Insights/diagnosticSettingz@2021-05-01-preview'", "want one diagnosticSettings resource"},
	{"diagnostics to AzureDiagnostics", cosmosFile, "    logAnalyticsDestinationType: 'Dedicated'\n", "", "logAnalyticsDestinationType <nil>, want Dedicated"},
	{"no partition-key RU log", cosmosFile, "category: 'PartitionKeyRUConsumption'", "category: 'DataPlaneRequests'", "log category PartitionKeyRUConsumption is not enabled"},
	{"no control-plane log", cosmosFile, "category: 'ControlPlaneRequests'", "category: 'QueryRuntimeStatistics'", "log category ControlPlaneRequests is not enabled"},
	{"logs to no workspace", mainFile, "logAnalyticsWorkspaceId: monitoring.outputs.logAnalyticsId", "logAnalyticsWorkspaceId: ''", "want monitoring.outputs.logAnalyticsId"},
	{"table on Analytics", "modules/monitoring.bicep", "    plan: 'Basic'\n", "    plan: 'Analytics'\n", "is not on the Basic plan"},
	{"no saved query", "modules/monitoring.bicep", "workspaces/savedSearches@", "workspaces/savedSearchez@", "no savedSearches resource"},
	{"saved query renamed", "modules/monitoring.bicep", "displayName: 'Top partition keys by RU, last hour, per 5 minutes'", "displayName: 'Hot partitions'", "no savedSearches resource with displayName"},
	{"saved query per hour", "modules/monitoring.bicep", "bin(TimeGenerated, 5m)", "bin(TimeGenerated, 1h)", "per 5 minutes"},
	{"saved query joins", "modules/monitoring.bicep", "| sort by Window desc, RU desc\n", "| join kind=inner (CDBDataPlaneRequests) on PartitionKey\n", "a query of a Basic-plan table cannot"},
	{"saved query as a function", "modules/monitoring.bicep", "    version: 2\n", "    version: 2\n    functionAlias: 'HotPartitions'\n", "user-defined functions"},
	// Priority-based execution.
	{"priority-based execution off", cosmosFile, "    enablePriorityBasedExecution: priorityBasedExecution ? true : null\n", "", "enablePriorityBasedExecution <nil>"},
	{"default priority low", cosmosFile, "defaultPriorityLevel: priorityBasedExecution ? 'High' : null", "defaultPriorityLevel: priorityBasedExecution ? 'Low' : null", "defaultPriorityLevel Low"},
	{"priority on serverless", cosmosFile, "enablePriorityBasedExecution: priorityBasedExecution ? true : null", "enablePriorityBasedExecution: true", "serverless Microsoft.DocumentDB/databaseAccounts properties.enablePriorityBasedExecution"},
	// Alerts.
	{"no alerts", mainFile, "module alerts 'modules/alerts.bicep'", "module alerts 'modules/alertz.bicep'", "no module modules/alerts.bicep"},
	{"alert e-mail not from the environment", paramFile, "readEnvironmentVariable('ALERT_EMAIL', '')", "''", "ALERT_EMAIL"},
	{"receivers without an e-mail", alertsFile, "emailReceivers: empty(alertEmail) ? [] : emailReceivers", "emailReceivers: emailReceivers", "emailReceivers"},
	{"throttling alert on 503", alertsFile, "                '429'\n", "                '503'\n", "no metric alert on Cosmos DB TotalRequests with StatusCode 429"},
	{"throttling alert notifies nobody", alertsFile, "        actionGroupId: actionGroup.id\n", "        actionGroupId: ''\n", "does not notify"},
	{"no function failure alert", alertsFile, "    name: 'function-failures'\n", "    name: 'function-errors'\n", "no function-failures alert"},
	{"audit lag of another metric", alertsFile, "| where name == 'todoaudit.audit.lag'", "| where name == 'todoaudit.audit.latency'", "audit-lag alert's query does not look for"},
	{"dead letters counted from five", alertsFile, "    threshold: 0\n", "    threshold: 5\n", "must fire on any dead letter"},
	{"dead letter message drifts", alertsFile, "contains 'audit dead letter: a document could not be audited'", "contains 'dead letter'", "dead-letters alert's query does not look for"},
	{"log alerts notify nobody", alertsFile, "        actionGroups: [\n          actionGroup.id\n        ]\n", "        actionGroups: []\n", "no scheduledQueryRules for-expression"},
}

func TestChecksFailWhenSomethingDrifts(t *testing.T) {
	base := repoSources(t)
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			s := base.clone()
			var src string
			switch {
			case strings.HasPrefix(m.file, "fn:"):
				src = string(s.Functions[strings.TrimPrefix(m.file, "fn:")])
			case s.text(m.file) != nil:
				src = *s.text(m.file)
			default:
				src = s.Bicep[m.file]
			}
			if !strings.Contains(src, m.old) {
				t.Fatalf("%s no longer contains %q: update this mutation", m.file, m.old)
			}
			src = strings.Replace(src, m.old, m.new, 1)
			switch {
			case strings.HasPrefix(m.file, "fn:"):
				s.Functions[strings.TrimPrefix(m.file, "fn:")] = []byte(src)
			case s.text(m.file) != nil:
				*s.text(m.file) = src
			default:
				s.Bicep[m.file] = src
			}
			all := runChecks(s)
			for _, msg := range all {
				if strings.Contains(msg, m.wantMatch) {
					return
				}
			}
			t.Errorf("no check reported %q after the mutation; problems: %q", m.wantMatch, all)
		})
	}
}
