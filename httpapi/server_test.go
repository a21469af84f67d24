package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// unreachable is a todo container whose point reads fail as an unreachable
// Cosmos DB would, with an internal cause.
type unreachable struct{ store.Container }

func (unreachable) Read(context.Context, store.PartitionKey, string) (store.Item, error) {
	return store.Item{}, todo.Wrap(todo.Unavailable, errors.New("dial tcp 10.0.0.7:443: connection refused"), "Cosmos DB is unreachable")
}

// Every error answer logs its cause, a 5xx that is not a bug at Warn, while
// the caller sees only the public message.
func TestErrorCausesAreLogged(t *testing.T) {
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{
		{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}},
		{Name: "audit", PartitionKeyPaths: partition.AuditKeyPaths},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	todos, _ := st.Container(context.Background(), "todos")
	audit, _ := st.Container(context.Background(), "audit")
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	authn, err := auth.New(context.Background(), auth.Settings{Mode: auth.Dev}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h := httpapi.New(httpapi.Config{Service: service.New(sch, unreachable{todos}, audit, nil), Auth: authn,
		MaxBodyBytes: 1 << 20, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	for _, tc := range []struct {
		path   string
		status int
		level  string
		cause  string
	}{
		{"/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", 503, "WARN", "connection refused"},
		{"/api/todos/Grocery:not-a-uuid", 400, "INFO", "does not end in a lower-case UUID"},
		{"/api/nothing", 404, "INFO", "no route for /api/nothing"},
	} {
		logs.Reset()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.path, nil))
		var line struct {
			Level, Error string
			Status       int
		}
		if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
			t.Fatalf("%s: log %q: %v", tc.path, logs.String(), err)
		}
		if w.Code != tc.status || line.Status != tc.status || line.Level != tc.level || !strings.Contains(line.Error, tc.cause) {
			t.Errorf("%s: answered %d, logged %+v; want %d at %s with %q", tc.path, w.Code, line, tc.status, tc.level, tc.cause)
		}
		if tc.status == 503 && strings.Contains(w.Body.String(), "10.0.0.7") {
			t.Errorf("the cause leaked to the caller: %s", w.Body)
		}
	}
}
