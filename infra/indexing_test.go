package infra_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// indexedPaths reads a container's indexing policy from the Bicep: the
// top-level properties it includes (/name/?), or nil when it indexes
// every path (no policy, or /* included).
func indexedPaths(r *bicepResource, p *problems) []string {
	policy, ok := get(r.Body, "properties", "resource", "indexingPolicy")
	if !ok {
		return nil
	}
	if mode, _ := get(policy, "indexingMode"); mode != "consistent" {
		p.add("%s: container %s indexingMode %v, want consistent", cosmosFile, r.Name, mode)
	}
	var paths []string
	included, _ := get(policy, "includedPaths")
	for _, x := range asList(included) {
		path, _ := get(x, "path")
		s, _ := path.(string)
		if s == "/*" {
			return nil
		}
		name, ok := strings.CutSuffix(strings.TrimPrefix(s, "/"), "/?")
		if !ok || strings.ContainsAny(name, "/*") {
			p.add("%s: container %s includes %v; the policies include top-level properties only (/name/?)", cosmosFile, r.Name, path)
			continue
		}
		paths = append(paths, name)
	}
	excluded, _ := get(policy, "excludedPaths")
	if !slices.ContainsFunc(asList(excluded), func(x any) bool { v, _ := get(x, "path"); return v == "/*" }) {
		p.add("%s: container %s includes only some paths but does not exclude /*", cosmosFile, r.Name)
	}
	return paths
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
		got := indexedPaths(r.resource, &p)
		want := containerPolicies[setting]
		var wantPaths []string
		if want != nil {
			wantPaths = want.Paths
		}
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(wantPaths))) {
			p.add("%s: container %s indexes %v, the Go policy for %s indexes %v (nil: every path)", cosmosFile, r.resource.Name, got, setting, wantPaths)
		}
	}
	return p
}

// checkQueriedPathsIndexed: every property a query filters or orders on,
// by container name, is in that container's Bicep indexing policy.
func checkQueriedPathsIndexed(s sources, queried map[string][]string) []string {
	var p problems
	byName := map[string]namedResource{}
	for _, r := range cosmosResources(s, config.Settings, &p) {
		byName[r.name] = r
	}
	for name, fields := range queried {
		r, ok := byName[name]
		if !ok {
			p.add("the handler queries container %s, which the Bicep does not create", name)
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
		ordered = append(ordered, o.Field)
	}
	for i := range q.PartitionKey {
		fields = append(fields, strings.TrimPrefix(spec.PartitionKeyPaths[i], "/"))
	}
	l := c.r.log
	l.mu.Lock()
	l.add(l.fields, spec.Name, append(fields, ordered...))
	l.add(l.ordered, spec.Name, ordered)
	l.mu.Unlock()
	return c.Container.Query(ctx, q)
}

// queriedFields runs the handler on the embedded store under every
// partition scheme through every endpoint that queries (lists, the admin
// report, dead letters, history and its verification, rollback, move,
// reconcile) and returns, by container, the properties its queries filter
// and order on, and apart those they order on.
func queriedFields(t *testing.T) (queried, ordered map[string][]string) {
	log := &fieldLog{fields: map[string]map[string]bool{}, ordered: map[string]map[string]bool{}}
	for _, scheme := range partition.Names {
		a := apitest.Start(t, map[string]string{"DATA_DIR": t.TempDir(), "PARTITION_SCHEME": scheme, "AUDIT_PUMP": "on", "ADMIN_USERS": "alice"},
			&app.Options{Wrap: func(st store.Store) store.Store { return &recorder{Store: st, log: log} }})
		c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
		apitest.CRUD(t, c, scheme)
		id := c.Create("Work", "report")["id"].(string)
		c.ListAll("/api/manage/todos?pageSize=3")
		c.ListAll("/api/manage/todos?category=Work")
		apitest.Want(t, c.Do("GET", "/api/manage/deadletters", nil), 200)
		if err := a.DrainAudit(context.Background()); err != nil {
			t.Fatal(err)
		}
		apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200)
		apitest.Want(t, c.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}), 200)
		apitest.Want(t, c.Do("DELETE", "/api/todos/"+id, nil), 204)
		apitest.Want(t, c.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}), 200)
		switch r := c.Do("POST", "/api/todos/"+id+"/move", map[string]any{"category": "Home"}); r.Status {
		case 201:
			// Verifying the moved todo's history follows the link back.
			if err := a.DrainAudit(context.Background()); err != nil {
				t.Fatal(err)
			}
			moved := r.JSON(t)["id"].(string)
			apitest.Want(t, c.Do("GET", "/api/todos/"+moved+"/history/verify", nil), 200)
		case 409: // the scheme does not key on category
		default:
			t.Fatalf("%s: move answered %d: %s", scheme, r.Status, r.Body)
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
	return lists(log.fields), lists(log.ordered)
}

// The indexing policies are derived from what the handler queries: run
// every querying endpoint, collect the properties, and check the Bicep
// indexes each. Removing any one of them from the Bicep must fail the check.
func TestIndexingCoversQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the handler under every scheme")
	}
	queried, ordered := queriedFields(t)
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
				continue // a container indexing every path
			}
			m := s.clone()
			m.Bicep[cosmosFile] = strings.Replace(m.Bicep[cosmosFile], path, "", 1)
			if !slices.ContainsFunc(checkQueriedPathsIndexed(m, queried), func(msg string) bool { return strings.Contains(msg, "does not index "+f) }) {
				t.Errorf("removing /%s/? from the Bicep (queried on %s) goes unnoticed", f, name)
			}
		}
	} // Every property a query orders on is kept sorted by the embedded
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
