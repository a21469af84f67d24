//go:build linux

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/internal/disktest"
)

type answer struct {
	status int
	header http.Header
	body   map[string]any
	took   time.Duration
}

func call(t *testing.T, method, url, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return answer{resp.StatusCode, resp.Header, m, time.Since(start)}
}

// until polls fn every 50 ms for up to limit and returns how long it took
// to hold.
func until(t *testing.T, limit time.Duration, what string, fn func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !fn() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// On a full disk a write gets 507 problem+json with Retry-After, reads go
// on, /api/health turns 503 degraded naming the cause, and everything
// recovers by itself once space returns; no acknowledged write is lost.
func TestDiskFull(t *testing.T) {
	disk := disktest.Small(t, 8<<20)
	if disk == "" {
		t.Skip("cannot mount a tmpfs here (not root); bolt's TestInjectedWriteFaults covers the fault")
	}
	p := startProc(t, "DATA_DIR="+filepath.Join(disk, "data"))
	first := post(t, p.url("/api/todos"), `{"category":"Grocery","title":"before"}`)

	filler, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for chunk := make([]byte, 64<<10); ; {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	filler.Close()

	var acked []string
	var full answer
	for i := 0; ; i++ {
		a := call(t, "POST", p.url("/api/todos"), `{"category":"Grocery","title":"`+strings.Repeat("x", 1000)+`"}`)
		if a.status == 201 {
			acked = append(acked, a.body["id"].(string))
		} else {
			full = a
			break
		}
		if i > 2000 {
			t.Fatal("writes on a full disk never failed")
		}
	}
	if full.status != 507 || full.header.Get("Content-Type") != "application/problem+json" || full.header.Get("Retry-After") == "" ||
		!strings.Contains(full.body["detail"].(string), "no space left") {
		t.Fatalf("write on a full disk: %d %v %v", full.status, full.header, full.body)
	}
	if a := call(t, "GET", p.url("/api/todos/"+first["id"].(string)), ""); a.status != 200 {
		t.Fatalf("read on a full disk: %d", a.status)
	}
	degradedIn := until(t, 10*time.Second, "health degraded", func() bool {
		a := call(t, "GET", p.url("/api/health"), "")
		cause, _ := a.body["store"].(string)
		return a.status == 503 && a.body["status"] == "degraded" && strings.Contains(cause, "no space left")
	})

	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	recoveredIn := until(t, 10*time.Second, "health ok again", func() bool {
		return call(t, "GET", p.url("/api/health"), "").status == 200
	})
	after := call(t, "POST", p.url("/api/todos"), `{"category":"Grocery","title":"after"}`)
	if after.status != 201 {
		t.Fatalf("write once space returned: %d %v", after.status, after.body)
	}
	for _, id := range append(acked, first["id"].(string)) {
		if a := call(t, "GET", p.url("/api/todos/"+id), ""); a.status != 200 {
			t.Fatalf("acknowledged todo %s: %d", id, a.status)
		}
	}
	t.Logf("disk full: 507 answered in %v; health degraded %v later; healthy %v after space returned; next write 201 in %v",
		full.took.Round(time.Millisecond), degradedIn.Round(time.Millisecond), recoveredIn.Round(time.Millisecond), after.took.Round(time.Millisecond))
}
