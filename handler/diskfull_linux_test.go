//go:build linux

package main

import (
	"encoding/json"
	"fmt"
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

// fill writes path until the disk it is on is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for chunk := make([]byte, 4<<10); ; {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// On a full disk a write gets 507 problem+json with Retry-After, reads go
// on, /api/health turns 503 degraded naming the disk at once, and
// everything recovers by itself once space returns: health within 2 s
// however long the audit pump has been backing off, then the audit; no
// acknowledged write is lost.
func TestDiskFull(t *testing.T) {
	disk := disktest.Small(t, 8<<20)
	if disk == "" {
		t.Skip("cannot mount a tmpfs here (not root); bolt's TestInjectedWriteFaults covers the fault")
	}
	p := startProc(t, "DATA_DIR="+filepath.Join(disk, "data"))
	first := post(t, p.url("/api/todos"), `{"category":"Grocery","title":"before"}`)

	fill(t, filepath.Join(disk, "filler"))

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
	// The first 503 of health names the disk, not the audit pump whose
	// writes it refuses too.
	var firstCause string
	degradedIn := until(t, 10*time.Second, "health degraded", func() bool {
		a := call(t, "GET", p.url("/api/health"), "")
		firstCause, _ = a.body["store"].(string)
		return a.status == 503 && a.body["status"] == "degraded"
	})
	if !strings.Contains(firstCause, "no space left") {
		t.Fatalf("the first 503 of health names %q, not the disk", firstCause)
	}
	// Give back a little room at a time, each taken by a write, until one
	// write fits: with its audit, which the embedded store commits with it
	// (the pump's relay), so a write that fits never leaves its audit
	// behind for the pump to retry.
	fillerPath := filepath.Join(disk, "filler")
	var fitted string
	until(t, 20*time.Second, "a write fitting again", func() bool {
		if st, err := os.Stat(fillerPath); err == nil && st.Size() > 4<<10 {
			_ = os.Truncate(fillerPath, st.Size()-4<<10)
		}
		a := call(t, "PUT", p.url("/api/todos/"+first["id"].(string)), `{"category":"Grocery","title":"during `+strings.Repeat("y", 500)+`"}`)
		if a.status == 200 {
			fitted = fmt.Sprint(a.body["version"])
		}
		return a.status == 200
	})
	if h := call(t, "GET", p.url("/api/todos/"+first["id"].(string)+"/history?pageSize=100"), ""); h.status != 200 ||
		!strings.Contains(fmt.Sprint(h.body["items"]), "version:"+fitted) {
		t.Fatalf("the version written on a nearly full disk (%s) is not in its history at once: %d %v", fitted, h.status, h.body)
	}
	fill(t, filepath.Join(disk, "filler2"))
	heldFull := time.Now().Add(7 * time.Second)
	for time.Now().Before(heldFull) {
		if a := call(t, "GET", p.url("/api/health"), ""); a.status != 503 {
			t.Fatalf("health on a full disk: %d %v", a.status, a.body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	for _, f := range []string{"filler", "filler2"} {
		if err := os.Remove(filepath.Join(disk, f)); err != nil {
			t.Fatal(err)
		}
	}
	recoveredIn := until(t, 10*time.Second, "health ok again", func() bool {
		return call(t, "GET", p.url("/api/health"), "").status == 200
	})
	if recoveredIn > 2*time.Second {
		t.Errorf("health took %v to recover after space returned, want under 2 s", recoveredIn.Round(time.Millisecond))
	}
	caughtUpIn := until(t, 10*time.Second, "audit caught up", func() bool {
		a := call(t, "GET", p.url("/api/health"), "")
		audit, _ := a.body["audit"].(map[string]any)
		return a.status == 200 && audit["state"] == "running" && audit["lagSeconds"] == 0.0
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
	t.Logf("disk full: 507 answered in %v; health degraded %v later, naming %q; healthy %v after space returned, audit caught up %v later; next write 201 in %v",
		full.took.Round(time.Millisecond), degradedIn.Round(time.Millisecond), firstCause, recoveredIn.Round(time.Millisecond),
		caughtUpIn.Round(time.Millisecond), after.took.Round(time.Millisecond))
}
