package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo/internal/race"
)

// heapPeak samples the Go heap's live objects every millisecond until
// stop is called, which returns the largest sample.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak
	}
}

// getJSON fetches url as alice and decodes a JSON answer into v, retrying
// an answer of 503 after its Retry-After (30 times at most); it returns
// how long the last attempt took and how many 503s came before it.
func getJSON(t *testing.T, url string, v any) (time.Duration, int) {
	t.Helper()
	busy := 0
	for {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("X-User-Id", "alice")
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, busy
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		switch {
		case err != nil:
			t.Error(err)
			return took, busy
		case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" && busy < 30:
			busy++
			time.Sleep(time.Second)
			continue
		case resp.StatusCode != http.StatusOK:
			t.Errorf("GET %s: %d %s", url, resp.StatusCode, b)
			return took, busy
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Error(err)
		}
		return took, busy
	}
}

// Answers are bounded in bytes and by their deadline: the history of the
// largest versions the product accepts verifies in steps, each
// answered within STORE_TIMEOUT and a second, and 24 concurrent requests
// of a history page of 100 such versions keep the Go heap within 160 MiB
// of what it was before. A test of timings, which the race detector
// distorts.
func TestBoundedAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 versions of 400 KB and times their answers")
	}
	race.Heavy(t)
	const storeTimeout = 3 * time.Second
	// 600 versions; BOUNDED_VERSIONS sets another number.
	versions := 600
	if v := os.Getenv("BOUNDED_VERSIONS"); v != "" {
		versions, _ = strconv.Atoi(v)
	}
	s := startApp(t, map[string]string{"STORE_TIMEOUT": storeTimeout.String(), "AUDIT_PUMP": "on"})
	id := want(t, s.Do("POST", "/api/todos", largest(1)), 201).JSON(t)["id"].(string)
	start := time.Now()
	for n := 2; n <= versions; n++ {
		want(t, s.Do("PUT", "/api/todos/"+id, largest(n)), 200)
	}
	if err := s.app.DrainAudit(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d versions written and audited in %v", versions, time.Since(start).Round(time.Millisecond))

	// Verify, following next until the whole chain is checked.
	steps, checked := 0, 0
	next := "/api/todos/" + id + "/history/verify"
	var slowest time.Duration
	for next != "" {
		var v struct {
			Verified bool
			Versions int
			Next     string
		}
		took, _ := getJSON(t, s.Base+next, &v)
		slowest = max(slowest, took)
		if took > storeTimeout+time.Second {
			t.Fatalf("verify step %d took %v, past STORE_TIMEOUT + 1 s", steps, took)
		}
		steps++
		checked += v.Versions
		if v.Next == "" && !v.Verified {
			t.Fatalf("verify step %d: %+v", steps, v)
		}
		next = v.Next
		if steps > versions {
			t.Fatal("verify does not progress")
		}
	}
	if checked != versions {
		t.Fatalf("verify checked %d versions in %d steps, want %d", checked, steps, versions)
	}
	t.Logf("verify of %d versions of about 400 KB: %d steps, the slowest %v", versions, steps, slowest.Round(time.Millisecond))

	// 24 concurrent requests of a history page of 100 such versions: each
	// is answered with a page bounded in bytes, and a continuation.
	runtime.GC()
	base := heapPeak()()
	stop := heapPeak()
	const readers = 24
	var wg sync.WaitGroup
	var mu sync.Mutex
	busy := 0
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p struct {
				Items        []json.RawMessage
				Continuation *string
			}
			_, b := getJSON(t, s.Base+"/api/todos/"+id+"/history?pageSize=100", &p)
			mu.Lock()
			busy += b
			mu.Unlock()
			size := 0
			for _, it := range p.Items {
				size += len(it)
			}
			if len(p.Items) == 0 || size > 4<<20 || (len(p.Items) < min(100, versions) && p.Continuation == nil) {
				t.Errorf("a page of %d versions, %d bytes, continuation %v", len(p.Items), size, p.Continuation != nil)
			}
		}()
	}
	wg.Wait()
	peak := stop()
	const bound = 160 << 20
	t.Logf("24 concurrent history pages of 100 versions of about 400 KB: heap peak %d MiB (%d MiB before), %d answers of 503 with Retry-After",
		peak>>20, base>>20, busy)
	if peak > base+bound {
		t.Fatalf("heap peak %d MiB, over %d MiB above the %d MiB before", peak>>20, bound>>20, base>>20)
	}
}
