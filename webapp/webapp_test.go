package webapp_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/todoaudit/todo/webapp"
)

// next answers what the page does not serve, recognisably.
var next = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })

func get(t *testing.T, h http.Handler, method, path string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// names lists the built files.
func names(t *testing.T) []string {
	t.Helper()
	files, err := fs.Glob(webapp.Files(), "*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no built files: %v", err)
	}
	return files
}

// hashed is the name of every built file but the page: esbuild's content
// hash before the extension.
var hashed = regexp.MustCompile(`^[a-z]+-[A-Z0-9]{8}\.(js|css|svg)$`)

// Every file of the page: its path, its type, its cache policy, the
// security headers, and its body plain or gzipped.
func TestEveryFile(t *testing.T) {
	h := webapp.Handler(webapp.Config{AuthMode: "dev"}, next)
	for _, name := range names(t) {
		path, cache := "/"+name, "public, max-age=31536000, immutable"
		switch {
		case name == "index.html":
			path, cache = webapp.PagePath, "no-cache"
		case !hashed.MatchString(name):
			t.Errorf("%s: not a hashed name", name)
		}
		want, err := fs.ReadFile(webapp.Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		w := get(t, h, "GET", path)
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("GET %s: %d, %d bytes, want 200 and the file's %d", path, w.Code, w.Body.Len(), len(want))
		}
		checkHeaders(t, path, w.Header(), cache, "'self'")
		ext := filepath.Ext(name)
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, map[string]string{".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}[ext]) {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		z := get(t, h, "GET", path, "Accept-Encoding", "br, gzip;q=0.8")
		if z.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, z.Body.Bytes()), want) {
			t.Errorf("GET %s with gzip: Content-Encoding %q, or a body that is not the file gzipped", path, z.Header().Get("Content-Encoding"))
		}
		head := get(t, h, "HEAD", path)
		if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != w.Header().Get("Content-Length") {
			t.Errorf("HEAD %s: %d with %d bytes, Content-Length %q", path, head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
		}
		if again := get(t, h, "GET", path, "If-None-Match", w.Header().Get("ETag")); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag: %d, want 304", path, again.Code)
		}
		if refused := get(t, h, "GET", path, "Accept-Encoding", "gzip;q=0"); refused.Header().Get("Content-Encoding") != "" {
			t.Errorf("GET %s: gzip sent to a client that refuses it", path)
		}
	}
}

// schemeOrAny is a CSP source that allows a whole scheme or any origin.
var schemeOrAny = regexp.MustCompile(`(^|\s)(\*|[a-z]+:)(\s|;|$)`)

// checkHeaders checks an answer's cache policy and security headers; its
// CSP must allow connections to connect (the sources after connect-src).
func checkHeaders(t *testing.T, path string, h http.Header, cache, connect string) {
	t.Helper()
	if got := h.Get("Cache-Control"); got != cache {
		t.Errorf("%s: Cache-Control %q, want %q", path, got, cache)
	}
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src " + connect + ";", "style-src 'self';", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: CSP %q lacks %q", path, csp, want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval"} {
		if strings.Contains(csp, bad) {
			t.Errorf("%s: CSP %q allows %s", path, csp, bad)
		}
	}
	if m := schemeOrAny.FindString(csp); m != "" {
		t.Errorf("%s: CSP %q allows %q", path, csp, strings.TrimSpace(m))
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("%s: X-Content-Type-Options %q, Referrer-Policy %q", path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The configuration says each mode's settings and no other's; under entra
// the page may also talk to its OpenID provider, and to no one else.
func TestConfig(t *testing.T) {
	for _, c := range []struct {
		cfg     webapp.Config
		json    string
		connect string
	}{
		{webapp.Config{AuthMode: "dev", AdminUsers: []string{"root"}}, `{"authMode":"dev","adminUsers":["root"]}`, "'self'"},
		{webapp.Config{AuthMode: "single", User: "owner"}, `{"authMode":"single","user":"owner"}`, "'self'"},
		{webapp.Config{AuthMode: "easyauth"}, `{"authMode":"easyauth"}`, "'self'"},
		{webapp.Config{AuthMode: "entra", Authority: "https://login.example.com/tenant/v2.0", ClientID: "spa", Scope: "api://api/.default"},
			`{"authMode":"entra","authority":"https://login.example.com/tenant/v2.0","clientId":"spa","scope":"api://api/.default"}`,
			"'self' https://login.example.com"},
	} {
		h := webapp.Handler(c.cfg, next)
		w := get(t, h, "GET", webapp.ConfigPath)
		if w.Code != 200 || strings.TrimSpace(w.Body.String()) != c.json || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s %q, want %s", c.cfg.AuthMode, w.Code, w.Header().Get("Content-Type"), w.Body.String(), c.json)
		}
		checkHeaders(t, webapp.ConfigPath, w.Header(), "no-cache", c.connect)
		checkHeaders(t, webapp.PagePath, get(t, h, "GET", webapp.PagePath).Header(), "no-cache", c.connect)
	}
}

// What the page does not serve goes on to the API: other paths, and other
// methods on the page's paths (the API answers them 405 or 404).
func TestPassesOn(t *testing.T) {
	h := webapp.Handler(webapp.Config{AuthMode: "dev"}, next)
	for _, c := range []struct{ method, path string }{
		{"POST", "/"}, {"PUT", webapp.ConfigPath}, {"GET", "/api/todos"}, {"GET", "/index.html"},
		{"GET", "/app.js"}, {"GET", "/static/index.html"}, {"POST", "/AuditTrigger"}, {"DELETE", "/" + names(t)[0]},
	} {
		if w := get(t, h, c.method, c.path); w.Code != http.StatusTeapot {
			t.Errorf("%s %s: %d, want it passed on", c.method, c.path, w.Code)
		}
	}
}

// firstLoad lists the built files a browser fetches to show the page: the
// page, its icon, stylesheet and script and the chunks the page names
// beside it (and the configuration, a few bytes made by the handler).
func firstLoad(t *testing.T) []string {
	t.Helper()
	page, err := fs.ReadFile(webapp.Files(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"index.html"}
	for _, m := range regexp.MustCompile(`(?:src|href)="/([^"]+)"`).FindAllSubmatch(page, -1) {
		if "/"+string(m[1]) != webapp.ConfigPath {
			files = append(files, string(m[1]))
		}
	}
	return files
}

// The page's first load is at most 60 KB gzipped, and the OpenID client,
// used only under entra, is not part of it.
func TestPageWeight(t *testing.T) {
	const budget = 60 * 1024
	total := 0
	for _, name := range firstLoad(t) {
		b, err := fs.ReadFile(webapp.Files(), name)
		if err != nil {
			t.Fatalf("the page names %s, which is not built: %v", name, err)
		}
		n := len(webapp.Gzip(b))
		total += n
		t.Logf("%-24s %6d bytes gzipped", name, n)
		if bytes.Contains(b, []byte("signinRedirect")) {
			t.Errorf("%s, loaded first, holds the OpenID client", name)
		}
	}
	t.Logf("%-24s %6d bytes gzipped", "first load", total)
	if total > budget {
		t.Errorf("first load %d bytes gzipped, over the budget of %d", total, budget)
	}
	if len(firstLoad(t)) < 3 {
		t.Errorf("first load %v: no script or stylesheet", firstLoad(t))
	}
}

// The page has no inline script or style for the policy to refuse.
func TestNoInlineCode(t *testing.T) {
	page, err := fs.ReadFile(webapp.Files(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAll(page, -1) {
		if !bytes.Contains(m, []byte(` src="/`)) {
			t.Errorf("inline script %s", m)
		}
	}
	if regexp.MustCompile(`<style| style=| on[a-z]+=`).Match(page) {
		t.Error("index.html has inline style or an event handler attribute")
	}
}

// The committed files are what make web builds from web/ now: a change of
// the sources without rebuilding fails here.
func TestBuiltFilesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the build")
	}
	const root = ".."
	if _, err := os.Stat(filepath.Join(root, "node_modules", "esbuild")); err != nil {
		t.Skip("node_modules is not installed (make test installs it)")
	}
	out := t.TempDir()
	cmd := exec.Command("node", filepath.Join("web", "build.mjs"), "--out", out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("web/build.mjs: %v\n%s", err, b)
	}
	fresh := map[string][]byte{}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fresh[e.Name()] = b
	}
	committed := names(t)
	for _, name := range committed {
		b, _ := fs.ReadFile(webapp.Files(), name)
		if !bytes.Equal(b, fresh[name]) {
			t.Errorf("webapp/static/%s is not what web/ builds now", name)
		}
		delete(fresh, name)
	}
	for name := range fresh {
		t.Errorf("web/ builds %s, which webapp/static lacks", name)
	}
	if t.Failed() {
		t.Log("run make web and commit webapp/static")
	}
}
