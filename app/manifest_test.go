package app_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/webapp"
)

// expand turns a function route template (host.json's routePrefix is
// empty: the routes name the whole path) into router paths: the optional
// parameter {id?} gives the path with and without it, and a catch-all
// {*path} is {path}.
func expand(route string) []string {
	var out []string
	var walk func(prefix string, segs []string)
	walk = func(prefix string, segs []string) {
		if len(segs) == 0 {
			out = append(out, prefix)
			return
		}
		seg := segs[0]
		// A catch-all {*name} is the route table's last {name}.
		if rest, ok := strings.CutPrefix(seg, "{*"); ok {
			seg = "{" + rest
		}
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "?}") {
			walk(prefix, segs[1:])
			seg = strings.TrimSuffix(seg, "?}") + "}"
		}
		walk(prefix+"/"+seg, segs[1:])
	}
	walk("", strings.Split(route, "/"))
	return out
}

// Every function.json route and method has a router route, and every router
// route belongs to the function.json of the function that serves it.
func TestManifest(t *testing.T) {
	fns, err := functions.All()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]string{} // "METHOD path" → function
	for _, r := range httpapi.Routes {
		for _, m := range r.Methods() {
			served[m+" "+r.Path] = r.Function
		}
	}
	declared := map[string]string{}
	var payload []string
	for _, f := range fns {
		trig, ok := f.Trigger()
		if !ok {
			t.Fatalf("%s has no trigger", f.Name)
		}
		if trig.Type != "httpTrigger" {
			payload = append(payload, f.Name)
			continue
		}
		if _, ok := f.Output("http"); !ok || len(f.Bindings) != 2 {
			t.Errorf("%s: an HTTP function needs exactly one httpTrigger and one http output to be forwarded", f.Name)
		}
		if trig.AuthLevel == "" {
			t.Errorf("%s: no authLevel", f.Name)
		}
		if f.Name == webapp.Function {
			checkWebAppFunction(t, trig)
			continue
		}
		for _, m := range trig.Methods {
			any := false
			for _, p := range expand(trig.Route) {
				key := strings.ToUpper(m) + " " + p
				declared[key] = f.Name
				if fn, ok := served[key]; ok {
					any = true
					if fn != f.Name {
						t.Errorf("%s is declared by %s but served as %s", key, f.Name, fn)
					}
				}
			}
			if !any {
				t.Errorf("%s %s (route %q) has no router route", f.Name, m, trig.Route)
			}
		}
	}
	for key, fn := range served {
		if declared[key] != fn {
			t.Errorf("router route %s (%s) is in no function.json", key, fn)
		}
	}
	// The payload-mode functions answer the host at POST /{name}.
	s := startHosted(t, map[string]string{"AUTH_MODE": "single"})
	for _, name := range payload {
		if r := s.Do("POST", "/"+name, `{"Data":{},"Metadata":{}}`); r.Status == 404 || r.Status == 405 {
			t.Errorf("payload-mode function %s is not served: %d", name, r.Status)
		}
	}
	// authLevel: admin for the cross-user reports, anonymous only for health,
	// the contract and the transparency log's public routes, which hold no
	// content.
	for _, f := range fns {
		trig, _ := f.Trigger()
		switch {
		case (f.Name == "AdminTodos" || f.Name == "Partitions" || f.Name == "VerifyLog") && trig.AuthLevel != "admin":
			t.Errorf("%s authLevel %q, want admin", f.Name, trig.AuthLevel)
		case trig.AuthLevel == "anonymous" && f.Name != "Health" && f.Name != "OpenAPI" && f.Name != webapp.Function && !strings.HasPrefix(trig.Route, "api/log/"):
			t.Errorf("%s is anonymous", f.Name)
		}
	}
}

// checkWebAppFunction: the web page's function takes GET and HEAD of the
// site's root and of one-segment paths, the page's files, and nothing
// deeper: a catch-all would also take, anonymously, every /api/ path no
// API function declares.
func checkWebAppFunction(t *testing.T, trig functions.Binding) {
	t.Helper()
	if trig.Route != "{file?}" || trig.AuthLevel != "anonymous" {
		t.Errorf("%s: route %q authLevel %q, want {file?} and anonymous", webapp.Function, trig.Route, trig.AuthLevel)
	}
	if m := strings.ToLower(strings.Join(trig.Methods, ",")); m != "get,head" {
		t.Errorf("%s: methods %s, want get and head", webapp.Function, m)
	}
	files, err := fs.Glob(webapp.Files(), "*")
	if err != nil || len(files) == 0 {
		t.Fatalf("the page has no files: %v", err)
	}
	s := startHosted(t, map[string]string{"AUTH_MODE": "single"})
	for _, f := range append(files, strings.TrimPrefix(webapp.ConfigPath, "/")) {
		p := "/" + f
		if f == "index.html" {
			p = webapp.PagePath
		}
		if r := s.Do("GET", p, nil); r.Status != 200 {
			t.Errorf("the page's %s is not served at %s: %d", f, p, r.Status)
		}
	}
}

// make stage builds a complete script root: host.json, one folder per
// function with its function.json, and an executable Linux handler.
func TestStage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the handler")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	out, err := exec.Command("make", "-C", root, "--no-print-directory", "stage", "DIST="+dist).CombinedOutput()
	if err != nil {
		t.Fatalf("make stage: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dist, "host.json")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dist, "handler"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&0o111 == 0 {
		t.Fatalf("dist/handler mode %v is not executable", fi.Mode())
	}
	b, err := os.ReadFile(filepath.Join(dist, "handler"))
	if err != nil || len(b) < 4 || string(b[1:4]) != "ELF" {
		t.Fatal("dist/handler is not a Linux binary")
	}
	fns, _ := functions.All()
	for _, f := range fns {
		if _, err := os.Stat(filepath.Join(dist, f.Name, "function.json")); err != nil {
			t.Errorf("dist lacks %s/function.json", f.Name)
		}
	}
	entries, _ := os.ReadDir(dist)
	if len(entries) != len(fns)+2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("dist holds %v, want host.json, handler and %d function folders", names, len(fns))
	}
}
