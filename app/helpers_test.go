package app_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/todoaudit/todo/apitest"
	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
)

// env builds a config lookup from key/value pairs.
func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

// server is a running handler under test, with an API client.
type server struct {
	*apitest.Client
	app *app.App
}

// As returns a client of the same server acting as another user.
func (s *server) As(user string) *server { return &server{Client: s.Client.As(user), app: s.app} }

// startApp runs the whole handler in-process on a free port with the given
// settings on top of test defaults.
func startApp(t testing.TB, settings map[string]string) *server {
	t.Helper()
	kv := map[string]string{
		"LISTEN_ADDR": "127.0.0.1:0",
		"DATA_DIR":    t.TempDir(),
		"AUDIT_PUMP":  "on",
		"LOG_LEVEL":   "error",
	}
	for k, v := range settings {
		kv[k] = v
	}
	cfg, err := config.Load(env(kv))
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}
}

var want = apitest.Want

// history waits for the pump and returns the whole history of id.
func (s *server) history(id string) ([]map[string]any, bool) {
	s.T.Helper()
	if err := s.app.DrainAudit(context.Background()); err != nil {
		s.T.Fatal(err)
	}
	var items []map[string]any
	complete := true
	next := ""
	for range 1000 {
		p := "/api/todos/" + id + "/history?pageSize=100"
		if next != "" {
			p += "&continuation=" + next
		}
		page := want(s.T, s.Do("GET", p, nil), 200).JSON(s.T)
		for _, it := range page["items"].([]any) {
			items = append(items, it.(map[string]any))
		}
		complete = complete && page["complete"].(bool)
		c, _ := page["continuation"].(string)
		if c == "" {
			return items, complete
		}
		next = c
	}
	s.T.Fatal("history paging did not end")
	return nil, false
}

var schemes = []string{"hierarchical", "category", "synthetic"}

// forEachScheme runs fn against a fresh handler under every scheme.
func forEachScheme(t *testing.T, settings map[string]string, fn func(t *testing.T, s *server, scheme string)) {
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			kv := map[string]string{"PARTITION_SCHEME": scheme, "SYNTHETIC_BUCKETS": "4"}
			for k, v := range settings {
				kv[k] = v
			}
			fn(t, startApp(t, kv), scheme)
		})
	}
}
