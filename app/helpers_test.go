package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
)

// env builds a config lookup from key/value pairs.
func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

// server is a running handler under test.
type server struct {
	t    testing.TB
	app  *app.App
	base string
	user string // X-User-Id sent with requests (dev mode)
	hdr  map[string]string
}

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
	a, err := app.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
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
	return &server{t: t, app: a, base: "http://" + a.Addr(), user: "alice"}
}

// as returns a client of the same server acting as another user.
func (s *server) as(user string) *server {
	c := *s
	c.user = user
	return &c
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return m
}

// do sends a request; body may be nil, a string (sent raw) or any value
// (sent as JSON). Extra headers come as "Name: value" strings.
func (s *server) do(method, path string, body any, headers ...string) response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.user != "" {
		req.Header.Set("X-User-Id", s.user)
	}
	for k, v := range s.hdr {
		req.Header.Set(k, v)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// want fails unless r has the given status.
func want(t testing.TB, r response, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	return r
}

// create makes a todo and returns its JSON.
func (s *server) create(category, title string) map[string]any {
	s.t.Helper()
	return want(s.t, s.do("POST", "/api/todos", map[string]any{"category": category, "title": title}), 201).json(s.t)
}

// listAll pages through a list URL and returns every item.
func (s *server) listAll(path string) []map[string]any {
	s.t.Helper()
	var out []map[string]any
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	next := ""
	for range 1000 {
		p := path
		if next != "" {
			p += sep + "continuation=" + next
		}
		page := want(s.t, s.do("GET", p, nil), 200).json(s.t)
		for _, it := range page["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		c, _ := page["continuation"].(string)
		if c == "" {
			return out
		}
		next = c
	}
	s.t.Fatal("paging did not end")
	return nil
}

// history waits for the pump and returns the whole history of id.
func (s *server) history(id string) ([]map[string]any, bool) {
	s.t.Helper()
	if err := s.app.DrainAudit(context.Background()); err != nil {
		s.t.Fatal(err)
	}
	var items []map[string]any
	complete := true
	next := ""
	for range 1000 {
		p := "/api/todos/" + id + "/history?pageSize=100"
		if next != "" {
			p += "&continuation=" + next
		}
		page := want(s.t, s.do("GET", p, nil), 200).json(s.t)
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
	s.t.Fatal("history paging did not end")
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
