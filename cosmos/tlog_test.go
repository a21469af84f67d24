package cosmos_test

import (
	"context"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/cosmos"
	"github.com/todoaudit/todo/store"
)

// logSettings are the settings of a handler on a fresh database of the
// local Cosmos-protocol server, under the category scheme without the
// pump (its change feed never advances), with a log signing key of its own
// and admin as the administrator.
func logSettings(t *testing.T, admin string) map[string]string {
	t.Helper()
	endpoint := cosmos.WireEndpoint(t)
	database := cosmos.UniqueDatabase()
	t.Cleanup(func() { cosmos.DropDatabase(endpoint, database) })
	skey, _, err := note.GenerateKey(nil, "todoaudit.local/log")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"STORE": "cosmos", "COSMOS_ENDPOINT": endpoint, "COSMOS_KEY": cosmos.EmulatorKey,
		"COSMOS_DATABASE": database, "PARTITION_SCHEME": "category", "AUDIT_PUMP": "off",
		"ADMIN_USERS": admin, "LOG_SIGNING_KEY": skey, "LOG_ANCHOR_DIR": t.TempDir(),
	}
}

// The transparency log on the Cosmos DB adapter over the wire: the API
// suite's export and log cases, with reconcile and the log's integrator
// run as their timers would; then two handlers integrating into the same
// database at once build one tree that the log's audit finds complete.
func TestTransparencyLogOnCosmos(t *testing.T) {
	settings := logSettings(t, "alice")
	var stores []store.Store
	var mu sync.Mutex
	opts := &app.Options{
		Cosmos: func(c *cosmos.Config) { c.ClientOptions = cosmos.WireClientOptions() },
		Wrap: func(s store.Store) store.Store {
			mu.Lock()
			stores = append(stores, s)
			mu.Unlock()
			return s
		},
	}
	a := apitest.Start(t, settings, opts)
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	reconcile := func(a *app.App) {
		t.Helper()
		if _, err := a.Reconcile(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	integrate := func(a *app.App) {
		if _, err := a.IntegrateLog(t.Context()); err != nil {
			t.Error(err)
		}
	}
	settle := func() {
		reconcile(a)
		integrate(a)
	}
	auditC, err := stores[0].Container(context.Background(), "audit")
	if err != nil {
		t.Fatal(err)
	}
	apitest.VerifiableExport(t, c, settle)
	apitest.TransparencyLog(t, c, auditC, settle)

	// A second handler on the same database, the same key and anchors.
	b := apitest.Start(t, settings, opts)
	cb := &apitest.Client{T: t, Base: "http://" + b.Addr(), User: "bob"}
	bobs := map[string]bool{}
	for range 30 {
		bobs[cb.Create("Work", "from bob")["id"].(string)] = true
	}
	reconcile(b)
	var wg sync.WaitGroup
	for _, h := range []*app.App{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				integrate(h)
			}
		}()
	}
	wg.Wait()
	got := apitest.Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t)
	problems, _ := got["problems"].([]any)
	// The problems of the tampering above, and nothing else: no version
	// of bob's is missing from the log or logged twice. (A reconcile run
	// that examines the deleted record's version again refills it.)
	if len(problems) == 0 || len(problems) > 2 || got["pending"] != 0.0 {
		t.Fatalf("audit after two integrators: %v", got)
	}
	for _, p := range problems {
		m, _ := p.(map[string]any)
		if id, _ := m["entityId"].(string); bobs[id] {
			t.Fatalf("audit after two integrators: a problem with a version of bob's: %v", got)
		}
	}
}

// onCosmos starts a handler on a fresh database of the local
// Cosmos-protocol server, with the log, alice as its administrator, and
// settle running reconcile and the integrator as their timers would.
func onCosmos(t *testing.T) (c *apitest.Client, s *apitest.Store, settle func(), a *app.App) {
	var st store.Store
	a = apitest.Start(t, logSettings(t, "alice"), &app.Options{
		Cosmos: func(c *cosmos.Config) { c.ClientOptions = cosmos.WireClientOptions() },
		Wrap:   func(s store.Store) store.Store { st = s; return s },
	})
	settle = func() {
		if _, err := a.Reconcile(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := a.IntegrateLog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, apitest.Containers(t, st), settle, a
}

// A todo's newest versions removed from Cosmos DB are found.
func TestLostVersionsOnCosmos(t *testing.T) {
	c, s, settle, _ := onCosmos(t)
	apitest.LostVersions(t, c, s, settle)
}

// Damaged log documents in Cosmos DB are reported and repaired.
func TestDamagedLogOnCosmos(t *testing.T) {
	c, s, _, a := onCosmos(t)
	apitest.DamagedLog(t, c, s, func() error {
		if _, err := a.Reconcile(t.Context()); err != nil {
			return err
		}
		_, err := a.IntegrateLog(t.Context())
		return err
	})
}

// The log's audit checks index documents and records' content, on
// Cosmos DB.
func TestAuditedIndexAndContentOnCosmos(t *testing.T) {
	c, s, settle, _ := onCosmos(t)
	apitest.AuditedIndexAndContent(t, c, s, settle)
}

// A tampered record in Cosmos DB is served as evidence.
func TestTamperedEvidenceOnCosmos(t *testing.T) {
	c, s, settle, _ := onCosmos(t)
	apitest.TamperedEvidence(t, c, s, settle)
}
