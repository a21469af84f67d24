package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency"
)

// integrate runs the log's integrator of a standalone handler.
func (s *server) integrate() {
	s.T.Helper()
	if err := s.app.DrainAudit(context.Background()); err != nil {
		s.T.Fatal(err)
	}
	if _, err := s.app.IntegrateLog(context.Background()); err != nil {
		s.T.Fatal(err)
	}
}

// The transparency log's API on the embedded store.
func TestTransparencyLog(t *testing.T) {
	var st store.Store
	a := apitest.Start(t, map[string]string{"DATA_DIR": t.TempDir(), "ADMIN_USERS": "alice"},
		&app.Options{Wrap: func(s store.Store) store.Store { st = s; return s }})
	s := &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}
	auditC, err := st.Container(context.Background(), "audit")
	if err != nil {
		t.Fatal(err)
	}
	apitest.TransparencyLog(t, s.Client, auditC, s.integrate)
}

// Exports verified offline against the log, under every partition scheme.
func TestVerifiableExport(t *testing.T) {
	forEachScheme(t, map[string]string{"ADMIN_USERS": "alice"}, func(t *testing.T, s *server, _ string) {
		apitest.VerifiableExport(t, s.Client, s.integrate)
	})
}

// A handler that can be closed and started again over the same data.
type restartable struct {
	*server
	close func()
}

func startOver(t *testing.T, kv map[string]string) restartable {
	t.Helper()
	a, closeApp := launchClosable(t, kv, nil)
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	s := &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}
	return restartable{s, func() {
		if err := closeApp(); err != nil {
			t.Fatalf("close: %v", err)
		}
	}}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The store restored from an older copy, while the anchor directory is
// kept, makes the integrator sign nothing and health 503 degraded naming
// the log, and the log's audit reports the store behind the anchor.
func TestRolledBackStoreRefused(t *testing.T) {
	dir := t.TempDir()
	kv := map[string]string{"DATA_DIR": dir, "AUDIT_PUMP": "on", "ADMIN_USERS": "alice"}
	s := startOver(t, kv)
	id := s.Create("Work", "v1")["id"].(string)
	s.integrate()
	s.close()
	copyFile(t, filepath.Join(dir, "store.db"), filepath.Join(dir, "older.db"))

	s = startOver(t, kv)
	want(t, s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": "v2"}), 200)
	s.integrate()
	anchored := want(t, s.Do("GET", "/api/log/checkpoint", nil), 200).Body
	s.close()
	copyFile(t, filepath.Join(dir, "older.db"), filepath.Join(dir, "store.db"))

	s = startOver(t, kv)
	if _, err := s.app.IntegrateLog(context.Background()); err == nil || !strings.Contains(err.Error(), transparency.ErrRefused.Error()) {
		t.Fatalf("integrating a rolled-back store: %v", err)
	}
	h := want(t, s.Do("GET", "/api/health", nil), 503).JSON(t)
	if h["status"] != "degraded" || !strings.Contains(h["store"].(string), "transparency log") {
		t.Fatalf("health: %v", h)
	}
	// The store's checkpoint is the older one; nothing newer was signed.
	if cp := want(t, s.Do("GET", "/api/log/checkpoint", nil), 200).Body; string(cp) == string(anchored) {
		t.Fatal("the rolled-back store serves the newest checkpoint")
	}
	got := want(t, s.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t)
	if got["verified"] != false || !strings.Contains(string(want(t, s.Do("GET", "/api/manage/log/verify", nil), 200).Body), "storeBehindAnchor") {
		t.Fatalf("log audit of a rolled-back store: %v", got)
	}
}

// tamperable starts a handler on the embedded store, alice its
// administrator, and opens its store's containers for a test to edit.
func tamperable(t *testing.T) (*server, *apitest.Store) {
	var st store.Store
	a := apitest.Start(t, map[string]string{"DATA_DIR": t.TempDir(), "ADMIN_USERS": "alice"},
		&app.Options{Wrap: func(s store.Store) store.Store { st = s; return s }})
	return &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}, apitest.Containers(t, st)
}

// A todo's newest versions removed from the embedded store are found.
func TestLostVersions(t *testing.T) {
	s, st := tamperable(t)
	apitest.LostVersions(t, s.Client, st, s.integrate)
}

// Damaged log documents in the embedded store are reported and repaired.
func TestDamagedLog(t *testing.T) {
	s, st := tamperable(t)
	apitest.DamagedLog(t, s.Client, st, func() error {
		if err := s.app.DrainAudit(context.Background()); err != nil {
			return err
		}
		_, err := s.app.IntegrateLog(context.Background())
		return err
	})
}

// The log's audit checks index documents and records' content, on the
// embedded store.
func TestAuditedIndexAndContent(t *testing.T) {
	s, st := tamperable(t)
	apitest.AuditedIndexAndContent(t, s.Client, st, s.integrate)
}

// A tampered record in the embedded store is served as evidence.
func TestTamperedEvidence(t *testing.T) {
	s, st := tamperable(t)
	apitest.TamperedEvidence(t, s.Client, st, s.integrate)
}
