package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// launch starts the handler in-process, with options o (nil for none),
// without waiting for its store.
func launch(t testing.TB, kv map[string]string, o *app.Options) *app.App {
	t.Helper()
	a, _ := launchClosable(t, kv, o)
	return a
}

// launchClosable is launch that also returns a function closing the
// handler, for a test that starts it again over the same data. It closes
// once, whether the test calls it or the test ends, and returns Close's
// error.
func launchClosable(t testing.TB, kv map[string]string, o *app.Options) (*app.App, func() error) {
	t.Helper()
	kv["LISTEN_ADDR"] = "127.0.0.1:0"
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := kv[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), o)
	if err != nil {
		t.Fatal(err)
	}
	closeApp := sync.OnceValue(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return a.Close(ctx)
	})
	t.Cleanup(func() { _ = closeApp() })
	return a, closeApp
}

// holdStore opens the embedded store in dir, as another process would,
// until the returned function is called.
func holdStore(t *testing.T, dir string) (release func()) {
	t.Helper()
	s, err := bolt.Open(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return func() { _ = s.Close() }
}

// slowOpening makes every attempt to open the store wait until release is
// called, heeding no cancellation (as the Cosmos DB SDK's first read does
// not), then open it as configured; opened is closed once one has.
func slowOpening() (o *app.Options, release func(), opened <-chan struct{}) {
	released, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	return &app.Options{OpenStore: func(ctx context.Context, open func(context.Context) (store.Store, error)) (store.Store, error) {
		<-released
		defer once.Do(func() { close(done) })
		return open(ctx)
	}}, sync.OnceFunc(func() { close(released) }), done
}

type answer struct {
	status int
	body   string
	err    error
}

func send(method, url, body string) answer {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	return do(req, body)
}

// inFlight sends a request in the background and returns once it is
// written, with the channel its answer will come on.
func inFlight(t *testing.T, method, url, body string) <-chan answer {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req, wrote := apitest.Written(req)
	answered := make(chan answer, 1)
	go func() { answered <- do(req, body) }()
	select {
	case <-wrote:
	case r := <-answered:
		t.Fatalf("%s %s answered before it was in flight: %+v", method, url, r)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s %s was not sent within 10s", method, url)
	}
	return answered
}

func do(req *http.Request, body string) answer {
	req.Header.Set("X-User-Id", "alice")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: string(b)}
}

// While the store is slow to open, GET / is ready at once, /api/health
// says 503 starting without waiting, and an API request waits for the
// store and then succeeds: no 503 at cold start.
func TestColdStartWaitsForTheStore(t *testing.T) {
	o, release, _ := slowOpening()
	defer release()
	a := launch(t, map[string]string{"DATA_DIR": t.TempDir()}, o)
	base := "http://" + a.Addr()

	if r := send("GET", base+"/", ""); r.status != 200 {
		t.Fatalf("GET / while opening: %+v", r)
	}
	r := send("GET", base+"/api/health", "")
	var h map[string]string
	_ = json.Unmarshal([]byte(r.body), &h)
	if r.status != 503 || h["status"] != "starting" {
		t.Fatalf("health while opening: %+v", r)
	}
	// Held until the store opens: an answer before then would be a 503.
	created := inFlight(t, "POST", base+"/api/todos", `{"category":"Grocery","title":"milk"}`)
	release()
	select {
	case r := <-created:
		if r.status != 201 {
			t.Fatalf("POST waiting for the store: %+v", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("POST not answered after the store opened")
	}
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	if r := send("GET", base+"/api/health", ""); r.status != 200 || !strings.Contains(r.body, `"status":"ok"`) {
		t.Fatalf("health once open: %+v", r)
	}
}

// Close while the store is still opening abandons the opening, well
// within STORE_OPEN_TIMEOUT, answers the requests waiting for it with 503,
// and leaves no lock behind: the store the abandoned attempt opens later
// is closed.
func TestCloseWhileOpening(t *testing.T) {
	dir := t.TempDir()
	o, release, openedLate := slowOpening()
	defer release()
	a := launch(t, map[string]string{"DATA_DIR": dir, "STORE_OPEN_TIMEOUT": "10m"}, o)
	waiting := inFlight(t, "GET", "http://"+a.Addr()+"/api/todos", "")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- a.Close(ctx) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close while opening still waiting for the opening after a minute")
	}
	if err := a.Wait(); err == nil {
		t.Fatal("Wait reports no error after Close cancelled the opening")
	}
	r := <-waiting
	if r.err == nil && (r.status != 503 || !strings.Contains(r.body, `"status":503`)) {
		t.Fatalf("request waiting for the store: %+v", r)
	}
	release()
	<-openedLate
	// The abandoned attempt's store is closed as soon as it opens; bolt.Open
	// waits a few seconds for its lock.
	s, err := bolt.Open(dir, nil, nil)
	if err != nil {
		t.Fatalf("the store the abandoned attempt opened is still locked: %v", err)
	}
	_ = s.Close()
}

// A store that keeps failing to open is retried until STORE_OPEN_TIMEOUT,
// and start-up then fails with the cause.
func TestStoreOpenTimeout(t *testing.T) {
	var attempts atomic.Int32
	o := &app.Options{OpenStore: func(context.Context, func(context.Context) (store.Store, error)) (store.Store, error) {
		attempts.Add(1)
		return nil, errors.New("the disk is not mounted yet")
	}}
	a := launch(t, map[string]string{"DATA_DIR": t.TempDir(), "STORE_OPEN_TIMEOUT": "3s"}, o)
	start := time.Now()
	err := a.Wait()
	if err == nil || !strings.Contains(err.Error(), "STORE_OPEN_TIMEOUT") || !strings.Contains(err.Error(), "the disk is not mounted yet") {
		t.Fatalf("Wait: %v", err)
	}
	if d := time.Since(start); d < 2*time.Second {
		t.Fatalf("gave up after %v, before STORE_OPEN_TIMEOUT", d)
	}
	if n := attempts.Load(); n < 2 {
		t.Fatalf("%d attempts, want retries", n)
	}
}

// A store another process holds (a second handler on the same DATA_DIR)
// stops start-up after a short wait for its lock, well within
// STORE_OPEN_TIMEOUT, with an error naming DATA_DIR and the lock; requests
// that waited for it get 503.
func TestHeldStoreStopsStartUp(t *testing.T) {
	dir := t.TempDir()
	defer holdStore(t, dir)()
	a := launch(t, map[string]string{"DATA_DIR": dir, "STORE_OPEN_TIMEOUT": "10m"}, nil)
	waiting := inFlight(t, "GET", "http://"+a.Addr()+"/api/todos", "")
	select {
	case <-a.Opened():
	case <-time.After(time.Minute):
		t.Fatal("start-up still waiting for the store a minute after launch")
	}
	err := a.Wait()
	if err == nil || !strings.Contains(err.Error(), "DATA_DIR "+dir) || !strings.Contains(err.Error(), "another process holds the lock") {
		t.Fatalf("Wait: %v, want an error naming DATA_DIR and the other process's lock", err)
	}
	if strings.Contains(err.Error(), "STORE_OPEN_TIMEOUT") {
		t.Fatalf("Wait: %v: retried as a transient fault", err)
	}
	if r := <-waiting; r.status != 503 || !strings.Contains(r.body, "not available") {
		t.Fatalf("request waiting for the store: %+v", r)
	}
}

// A partition scheme that differs from the one the store was created with
// stops start-up at once, naming the setting: no retry can fix it.
func TestChangedSchemeStopsStartUpAtOnce(t *testing.T) {
	dir := t.TempDir()
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	specs, err := partition.Containers(partition.Hierarchical, partition.ContainerNames{
		Todos: cfg.TodoContainer, Audit: cfg.AuditContainer, Leases: cfg.LeasesContainer})
	if err != nil {
		t.Fatal(err)
	}
	s, err := bolt.Open(dir, specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	start := time.Now()
	a := launch(t, map[string]string{"DATA_DIR": dir, "PARTITION_SCHEME": "category", "STORE_OPEN_TIMEOUT": "60s"}, nil)
	err = a.Wait()
	if err == nil || !strings.Contains(err.Error(), "PARTITION_SCHEME=category") || !errors.Is(err, store.ErrPartitionKeyChanged) {
		t.Fatalf("Wait: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("gave up after %v, want at once", d)
	}
}
