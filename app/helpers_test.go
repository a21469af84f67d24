package app_test

import (
	"context"
	"maps"
	"net"
	"strconv"
	"testing"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
)

// server is a running handler under test, with an API client.
type server struct {
	*apitest.Client
	app *app.App
}

// As returns a client of the same server acting as another user.
func (s *server) As(user string) *server { return &server{Client: s.Client.As(user), app: s.app} }

// startApp runs the whole handler in-process on a free port, on a fresh
// embedded store with the audit pump, with the given settings on top.
func startApp(t testing.TB, settings map[string]string) *server {
	t.Helper()
	return startAppWith(t, settings, nil)
}

// startAppWith is startApp with options.
func startAppWith(t testing.TB, settings map[string]string, o *app.Options) *server {
	t.Helper()
	kv := map[string]string{"DATA_DIR": t.TempDir(), "AUDIT_PUMP": "on"}
	maps.Copy(kv, settings)
	a := apitest.Start(t, kv, o)
	return &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}
}

// startHosted runs the handler as under the Functions host: on
// FUNCTIONS_CUSTOMHANDLER_PORT, whose socket the test binds first and
// hands over, so no other process can take the port in between.
func startHosted(t testing.TB, settings map[string]string) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{"FUNCTIONS_CUSTOMHANDLER_PORT": strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}
	maps.Copy(kv, settings)
	return startAppWith(t, kv, &app.Options{Listener: ln})
}

// refusingAddr is a loopback address nothing listens on.
func refusingAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
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
