package app_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// A burst of one user's creates under the synthetic scheme (64 at a time,
// 512 in all) is never refused: the sequence document that spreads them
// over the buckets is not what they contend on.
func TestSyntheticBurstOfOneUser(t *testing.T) {
	s := startApp(t, map[string]string{"PARTITION_SCHEME": "synthetic"})
	const workers, each = 64, 8
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body := fmt.Sprintf(`{"category":"Burst","title":"t%d-%d"}`, w, i)
				req, _ := http.NewRequest("POST", s.Base+"/api/todos", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-User-Id", "alice")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
				if resp.StatusCode != http.StatusCreated {
					t.Errorf("create answered %d: %s", resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if statuses[http.StatusCreated] != workers*each {
		t.Fatalf("answers %v, want %d × 201", statuses, workers*each)
	}
	if n := len(s.ListAll("/api/todos?pageSize=100")); n != workers*each {
		t.Fatalf("%d todos listed, want %d", n, workers*each)
	}
	t.Logf("%d creates by one user, %d at a time, in %v: %.0f creates/s", workers*each, workers, took.Round(time.Millisecond), float64(workers*each)/took.Seconds())
}
