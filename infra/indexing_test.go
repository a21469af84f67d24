package infra_test

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// indexedPaths reads a container's indexing policy from the Bicep: the
// top-level properties it includes (/name/?, and /name/[]/? for an array's
// elements, listed apart), or nil when it indexes every path (no policy,
// or /* included).
func indexedPaths(r *bicepResource, p *problems) []string {
	pol := bicepPolicy(r, p)
	if pol == nil {
		return nil
	}
	return append(slices.Clone(pol.Paths), pol.Arrays...)
}

// bicepPolicy reads a container's Bicep indexing policy as a Go policy
// (without Sorted, which only the embedded store keeps): nil when it
// indexes every path.
func bicepPolicy(r *bicepResource, p *problems) *store.IndexingPolicy {
	policy, ok := get(r.Body, "properties", "resource", "indexingPolicy")
	if !ok {
		return nil
	}
	if mode, _ := get(policy, "indexingMode"); mode != "consistent" {
		p.add("%s: container %s indexingMode %v, want consistent", cosmosFile, r.Name, mode)
	}
	out := &store.IndexingPolicy{}
	included, _ := get(policy, "includedPaths")
	for _, x := range asList(included) {
		path, _ := get(x, "path")
		s, _ := path.(string)
		if s == "/*" {
			return nil
		}
		if name, ok := strings.CutSuffix(strings.TrimPrefix(s, "/"), "/[]/?"); ok && !strings.ContainsAny(name, "/*") {
			out.Arrays = append(out.Arrays, name)
			continue
		}
		name, ok := strings.CutSuffix(strings.TrimPrefix(s, "/"), "/?")
		if !ok || strings.ContainsAny(name, "/*") {
			p.add("%s: container %s includes %v; the policies include top-level properties only (/name/? or /name/[]/?)", cosmosFile, r.Name, path)
			continue
		}
		out.Paths = append(out.Paths, name)
	}
	excluded, _ := get(policy, "excludedPaths")
	if !slices.ContainsFunc(asList(excluded), func(x any) bool { v, _ := get(x, "path"); return v == "/*" }) {
		p.add("%s: container %s includes only some paths but does not exclude /*", cosmosFile, r.Name)
	}
	composites, _ := get(policy, "compositeIndexes")
	for _, ci := range asList(composites) {
		var idx []store.Order
		for _, x := range asList(ci) {
			path, _ := get(x, "path")
			order, _ := get(x, "order")
			name, _ := path.(string)
			if order != "ascending" && order != "descending" {
				p.add("%s: container %s composite index path %v has order %v", cosmosFile, r.Name, path, order)
			}
			idx = append(idx, store.Order{Field: strings.TrimPrefix(name, "/"), Desc: order == "descending"})
		}
		out.Composite = append(out.Composite, idx)
	}
	return out
}

func asList(v any) []any { l, _ := v.([]any); return l }

// containerPolicies are the Go indexing policies by name setting.
var containerPolicies = map[string]*store.IndexingPolicy{
	"COSMOS_TODO_CONTAINER":   partition.TodoIndexing,
	"COSMOS_AUDIT_CONTAINER":  partition.AuditIndexing,
	"COSMOS_LEASES_CONTAINER": partition.LeaseIndexing,
}

// checkIndexing: each container's Bicep indexing policy is the Go policy
// the embedded store enforces (partition.*Indexing).
func checkIndexing(s sources) []string {
	var p problems
	for setting, r := range cosmosResources(s, config.Settings, &p) {
		got := bicepPolicy(r.resource, &p)
		want := containerPolicies[setting]
		if got == nil || want == nil {
			if got != want {
				p.add("%s: container %s indexes %v, the Go policy for %s indexes %v (nil: every path)", cosmosFile, r.resource.Name, got, setting, want)
			}
			continue
		}
		sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
		if !slices.Equal(sorted(got.Paths), sorted(want.Paths)) || !slices.Equal(sorted(got.Arrays), sorted(want.Arrays)) {
			p.add("%s: container %s indexes %v and the elements of %v, the Go policy for %s indexes %v and the elements of %v",
				cosmosFile, r.resource.Name, got.Paths, got.Arrays, setting, want.Paths, want.Arrays)
		}
		if !slices.EqualFunc(got.Composite, want.Composite, slices.Equal) {
			p.add("%s: container %s has composite indexes %v, the Go policy for %s %v", cosmosFile, r.resource.Name, got.Composite, setting, want.Composite)
		}
	}
	return p
}

// containersByName are the Bicep's Cosmos DB containers by name.
type containersByName map[string]namedResource

func resourcesByName(s sources, p *problems) containersByName {
	byName := containersByName{}
	for _, r := range cosmosResources(s, config.Settings, p) {
		byName[r.name] = r
	}
	return byName
}

// queried returns the container the handler queries by name, or adds the
// problem that the Bicep does not create it.
func (c containersByName) queried(name string, p *problems) (namedResource, bool) {
	r, ok := c[name]
	if !ok {
		p.add("the handler queries container %s, which the Bicep does not create", name)
	}
	return r, ok
}

// checkQueriedPathsIndexed: every property a query filters or orders on,
// by container name, is in that container's Bicep indexing policy.
func checkQueriedPathsIndexed(s sources, queried map[string][]string) []string {
	var p problems
	byName := resourcesByName(s, &p)
	for name, fields := range queried {
		r, ok := byName.queried(name, &p)
		if !ok {
			continue
		}
		paths := indexedPaths(r.resource, &p)
		if paths == nil {
			continue // every path
		}
		policy := &store.IndexingPolicy{Paths: paths} // id and _ts are indexed always
		for _, f := range fields {
			if !policy.Indexes(f) {
				p.add("%s: container %s does not index %s, which the handler's queries filter or order on", cosmosFile, r.resource.Name, f)
			}
		}
	}
	return p
}

// fieldLog collects, per container, the properties queries filter and
// order on, and the partition key paths of the queries scoped by a key
// (fields), and apart the properties they order on (ordered).
type fieldLog struct {
	mu              sync.Mutex
	fields, ordered map[string]map[string]bool
	// orders are the ORDER BY clauses on more than one property, which
	// need a composite index, by container.
	orders map[string]map[string][]store.Order
}

func (l *fieldLog) add(m map[string]map[string]bool, container string, fields []string) {
	if m[container] == nil {
		m[container] = map[string]bool{}
	}
	for _, f := range fields {
		m[container][f] = true
	}
}

// lists returns a set per container as sorted lists.
func lists(m map[string]map[string]bool) map[string][]string {
	out := map[string][]string{}
	for name, set := range m {
		out[name] = slices.Sorted(maps.Keys(set))
	}
	return out
}

// recorder wraps one app's store and logs its queries.
type recorder struct {
	store.Store
	log *fieldLog
}

func (r *recorder) Container(ctx context.Context, name string) (store.Container, error) {
	c, err := r.Store.Container(ctx, name)
	if err != nil {
		return nil, err
	}
	return &recordingContainer{Container: c, r: r}, nil
}

type recordingContainer struct {
	store.Container
	r *recorder
}

func (c *recordingContainer) Query(ctx context.Context, q store.Query) (store.Page, error) {
	spec := c.Spec()
	var fields, ordered []string
	for _, f := range q.Filters {
		fields = append(fields, f.Field)
	}
	for _, o := range q.OrderBy {
		// id breaks ties: always indexed, and in every range index key of
		// the embedded store.
		if o.Field != "id" {
			ordered = append(ordered, o.Field)
		}
	}
	if q.After != nil {
		fields = append(fields, q.After.Order.Field)
	}
	for i := range q.PartitionKey {
		fields = append(fields, strings.TrimPrefix(spec.PartitionKeyPaths[i], "/"))
	}
	l := c.r.log
	l.mu.Lock()
	l.add(l.fields, spec.Name, append(fields, ordered...))
	l.add(l.ordered, spec.Name, ordered)
	if len(q.OrderBy) > 1 {
		if l.orders[spec.Name] == nil {
			l.orders[spec.Name] = map[string][]store.Order{}
		}
		l.orders[spec.Name][fmt.Sprint(q.OrderBy)] = q.OrderBy
	}
	l.mu.Unlock()
	return c.Container.Query(ctx, q)
}

// routeBodies are the request bodies of the routes that take one, by
// function and method. A route of httpapi.Routes that takes a body must
// have one here, or the walk below fails on its 400.
var routeBodies = map[string]any{
	"UpsertTodo POST":   map[string]any{"category": "Work", "title": "report"},
	"UpsertTodo PUT":    map[string]any{"category": "Work", "title": "report, v2"},
	"RollbackTodo POST": map[string]any{"version": 1},
	"MoveTodo POST":     map[string]any{"category": "Home"},
	"UpsertTodo PATCH":  map[string]any{"title": "report, v3"},
	"LegalHolds POST":   map[string]any{"userId": "bob", "reason": "litigation"},
	"Erasures POST":     map[string]any{"userId": "carol", "reason": "GDPR request"},
}

// routeQueries are the query strings of the routes that need one.
var routeQueries = map[string]string{
	"TodoProof GET":           "?version=1",
	"LogConsistency GET":      "?from=1&to=1",
	"HistoryDiff GET":         "?from=1&to=1",
	"AuditActivity GET":       "?actor=alice",
	"AuditActivityExport GET": "?actor=alice",
}

// routeHeaders are the headers a route's body needs beyond JSON's.
var routeHeaders = map[string][]string{
	"UpsertTodo PATCH": {"Content-Type: application/merge-patch+json"},
}

// queriedFields runs the handler on the embedded store under every
// partition scheme, calls every route of the route table (httpapi.Routes)
// on a todo of its own with an audited history, then follows a move's
// link back, rolls back a deleted todo and runs reconcile twice, and
// returns, by container, the properties its queries filter and order on,
// and apart those they order on. A route added to the table is called
// too, so its queries are checked without a change here.
func queriedFields(t *testing.T) (queried, ordered map[string][]string, orders map[string]map[string][]store.Order) {
	log := &fieldLog{fields: map[string]map[string]bool{}, ordered: map[string]map[string]bool{}, orders: map[string]map[string][]store.Order{}}
	for _, scheme := range partition.Names {
		a := apitest.Start(t, map[string]string{"DATA_DIR": t.TempDir(), "PARTITION_SCHEME": scheme, "AUDIT_PUMP": "on", "ADMIN_USERS": "alice"},
			&app.Options{Wrap: func(st store.Store) store.Store { return &recorder{Store: st, log: log} }})
		c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
		apitest.CRUD(t, c, scheme)
		// drain audits what was written and logs it in the transparency log.
		drain := func() {
			t.Helper()
			if err := a.DrainAudit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := a.IntegrateLog(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		for _, rt := range httpapi.Routes {
			id := c.Create("Work", "report")["id"].(string)
			drain()
			path := strings.NewReplacer("{id}", url.PathEscape(id), "{path}", "0/000").Replace(rt.Path) + routeQueries[rt.Function+" "+rt.Method]
			r := c.Do(rt.Method, path, routeBodies[rt.Function+" "+rt.Method], routeHeaders[rt.Function+" "+rt.Method]...)
			switch {
			case r.Status/100 == 2:
			case rt.Function == "MoveTodo" && r.Status == 409: // the scheme does not key on category
				continue
			case rt.Function == "LogTile" && r.Status == 404: // a full tile needs 256 versions; tiles are point reads
				continue
			case rt.Function == "LegalHolds" && rt.Method == "DELETE" && r.Status == 404: // no such hold: a point read
				continue
			case rt.Function == "Erasures" && rt.Method == "GET" && r.Status == 404: // no such erasure: a point read
				continue
			default:
				t.Fatalf("%s: %s %s answered %d (a route that takes a body needs one in routeBodies): %s", scheme, rt.Method, path, r.Status, r.Body)
			}
			switch rt.Function {
			case "MoveTodo":
				// Verifying the moved todo's history follows the link back.
				drain()
				moved := r.JSON(t)["id"].(string)
				apitest.Want(t, c.Do("GET", "/api/todos/"+url.PathEscape(moved)+"/history/verify", nil), 200)
			case "DeleteTodo":
				// Rolling a deleted todo back re-creates it.
				apitest.Want(t, c.Do("POST", path+"/rollback", map[string]any{"version": 1}), 200)
			}
		}
		c.ListAll("/api/manage/todos?pageSize=3")
		c.ListAll("/api/manage/todos?category=Work")
		for _, sort := range partition.SortFields {
			for _, order := range []string{"asc", "desc"} {
				filters := "&tag=x&dueBefore=2030-01-01&dueAfter=2020-01-01&q=rep&isCompleted=false"
				c.ListAll("/api/todos?pageSize=1&sort=" + sort + "&order=" + order + filters)
				c.ListAll("/api/todos?pageSize=1&category=Work&sort=" + sort + "&order=" + order + filters)
				c.ListAll("/api/manage/todos?pageSize=1&sort=" + sort + "&order=" + order + filters)
				c.ListAll("/api/manage/todos?pageSize=1&category=Work&sort=" + sort + "&order=" + order)
			}
		}
		// The second run reads from the first one's watermark.
		for range 2 {
			if _, err := a.Reconcile(context.Background()); err != nil {
				t.Fatalf("%s: reconcile: %v", scheme, err)
			}
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	return lists(log.fields), lists(log.ordered), log.orders
}

// checkCompositesServe: every ORDER BY on more than one property, by
// container name, has a composite index in that container's Bicep
// indexing policy, as Cosmos DB requires.
func checkCompositesServe(s sources, orders map[string]map[string][]store.Order) []string {
	var p problems
	byName := resourcesByName(s, &p)
	for name, clauses := range orders {
		r, ok := byName.queried(name, &p)
		if !ok {
			continue
		}
		policy := bicepPolicy(r.resource, &p)
		for _, order := range clauses {
			if !policy.HasComposite(order) {
				p.add("%s: container %s has no composite index for ORDER BY %v, which the handler's queries use", cosmosFile, r.resource.Name, order)
			}
		}
	}
	return p
}

// The indexing policies are derived from what the handler queries: run
// every querying endpoint, collect the properties, and check the Bicep
// indexes each. Removing any one of them from the Bicep must fail the check.
func TestIndexingCoversQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the handler under every scheme")
	}
	queried, ordered, orders := queriedFields(t)
	for _, name := range []string{"todos", "audit"} {
		if len(queried[name]) == 0 {
			t.Fatalf("no query on container %s was recorded: %v", name, queried)
		}
	}
	t.Logf("queried properties by container: %v", queried)
	s := repoSources(t)
	for _, msg := range checkQueriedPathsIndexed(s, queried) {
		t.Error(msg)
	}
	for name, fields := range queried {
		for _, f := range fields {
			path := fmt.Sprintf("          {\n            path: '/%s/?'\n          }\n", f)
			if !strings.Contains(s.Bicep[cosmosFile], path) {
				path = fmt.Sprintf("          {\n            path: '/%s/[]/?'\n          }\n", f) // an array's elements
			}
			if !strings.Contains(s.Bicep[cosmosFile], path) {
				continue // a container indexing every path
			}
			m := s.clone()
			m.Bicep[cosmosFile] = strings.Replace(m.Bicep[cosmosFile], path, "", 1)
			if !slices.ContainsFunc(checkQueriedPathsIndexed(m, queried), func(msg string) bool { return strings.Contains(msg, "does not index "+f) }) {
				t.Errorf("removing /%s/? from the Bicep (queried on %s) goes unnoticed", f, name)
			}
		}
	}
	// Every ORDER BY on several properties has its composite index, and
	// removing any one from the Bicep fails the check.
	t.Logf("ORDER BY clauses needing a composite index: %v", orders)
	if len(orders["todos"]) < len(partition.SortFields) {
		t.Fatalf("sorted lists recorded only %v", orders["todos"])
	}
	for _, msg := range checkCompositesServe(s, orders) {
		t.Error(msg)
	}
	for _, f := range partition.SortFields {
		composite := fmt.Sprintf("          [\n            {\n              path: '/%s'\n              order: 'ascending'\n            }\n            {\n              path: '/id'\n              order: 'ascending'\n            }\n          ]\n", f)
		if !strings.Contains(s.Bicep[cosmosFile], composite) {
			t.Fatalf("the Bicep has no composite index (%s, id) as written here", f)
		}
		m := s.clone()
		m.Bicep[cosmosFile] = strings.Replace(m.Bicep[cosmosFile], composite, "", 1)
		if !slices.ContainsFunc(checkCompositesServe(m, orders), func(msg string) bool { return strings.Contains(msg, "ORDER BY [{"+f+" ") }) {
			t.Errorf("removing the composite index (%s, id) from the Bicep goes unnoticed", f)
		}
	}
	// Every property a query orders on is kept sorted by the embedded
	// store, so that its pages cost about a page.
	t.Logf("ordered properties by container: %v", ordered)
	for _, msg := range checkOrderedPathsSorted(ordered) {
		t.Error(msg)
	}
	if len(ordered["audit"]) == 0 {
		t.Fatal("no ORDER BY on the audit container was recorded")
	}
	for _, f := range ordered["audit"] {
		saved := partition.AuditIndexing.Sorted
		partition.AuditIndexing.Sorted = slices.DeleteFunc(slices.Clone(saved), func(s string) bool { return s == f })
		if len(checkOrderedPathsSorted(ordered)) == 0 {
			t.Errorf("dropping %s from partition.AuditIndexing.Sorted goes unnoticed", f)
		}
		partition.AuditIndexing.Sorted = saved
	}
}

// checkOrderedPathsSorted: every property a query orders on, by container
// name, is one the container's Go policy keeps sorted.
func checkOrderedPathsSorted(ordered map[string][]string) []string {
	var p problems
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		p.add("%v", err)
	}
	for _, spec := range specs {
		for _, f := range ordered[spec.Name] {
			if !spec.Indexing.Sorts(f) {
				p.add("container %s: queries ORDER BY %s, which its indexing policy does not list in Sorted: the embedded store sorts the whole partition for each page", spec.Name, f)
			}
		}
	}
	return p
}
