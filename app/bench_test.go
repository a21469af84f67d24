package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkUpdates is PUTs from 32 clients through the standalone handler
// in-process, its audit pump and the log's integrator on: an operation is
// one update, fsynced, and what auditing and logging it costs meanwhile.
// Run it with -cpuprofile to see where a write's time goes.
func BenchmarkUpdates(b *testing.B) {
	a := launch(b, map[string]string{"DATA_DIR": b.TempDir(), "AUTH_MODE": "dev"}, nil)
	base := "http://" + a.Addr()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	ids := make([]string, 32)
	for i := range ids {
		ids[i] = createTodo(b, c, base)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	b.ResetTimer()
	for w := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
				req, _ := http.NewRequest(http.MethodPut, base+"/api/todos/"+ids[w], strings.NewReader(fmt.Sprintf(`{"category":"Grocery","title":"update %d"}`, n)))
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body) // so that the connection is kept
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("PUT: %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// createTodo creates a todo through the handler at base and returns its id.
func createTodo(b *testing.B, c *http.Client, base string) string {
	b.Helper()
	resp, err := c.Post(base+"/api/todos", "application/json", strings.NewReader(`{"category":"Grocery","title":"Get more milk","tags":["dairy"]}`))
	if err != nil {
		b.Fatal(err)
	}
	var v struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || v.ID == "" {
		b.Fatalf("create: %v %d", err, resp.StatusCode)
	}
	return v.ID
}
