package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The process dies with SIGKILL while an erasure runs, and the restarted
// handler resumes it at start-up from its saved progress: the erasure
// finishes and the store's file holds none of the erased values.
func TestKill9DuringErasure(t *testing.T) {
	dir := t.TempDir()
	env := []string{"DATA_DIR=" + dir, "ADMIN_USERS=root"}
	p := startProc(t, env...)
	const secret = "aliceKill9Secret"
	for i := range 100 {
		td := post(t, p.url("/api/todos"), fmt.Sprintf(`{"category":"Grocery","title":"%s %d","notes":"%s"}`, secret, i, strings.Repeat(secret, 20)))
		for j := range 3 {
			put(t, p.url("/api/todos/"+td["id"].(string)), fmt.Sprintf(`{"category":"Grocery","title":"%s %d-%d"}`, secret, i, j))
		}
	}
	req, _ := http.NewRequest(http.MethodPost, p.url("/api/manage/erasures"), strings.NewReader(`{"userId":"local","reason":"GDPR request"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User-Id", "root")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusAccepted || loc == "" {
		t.Fatalf("erasure: %d %v", resp.StatusCode, resp.Header)
	}
	status := func(p *proc) map[string]any {
		req, _ := http.NewRequest(http.MethodGet, p.url(loc), nil)
		req.Header.Set("X-User-Id", "root")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&s)
		return s
	}
	// Killed once the erasure has saved some progress, before it is done.
	for {
		s := status(p)
		if s["state"] == "done" {
			t.Fatalf("the erasure finished before the kill: give it more to erase (%v)", s)
		}
		if s["phase"] != "todos" || s["erased"].(map[string]any)["todos"].(float64) > 0 {
			t.Logf("killed at %v", s)
			break
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()

	p = startProc(t, env...)
	deadline := time.Now().Add(30 * time.Second)
	for status(p)["state"] != "done" {
		if time.Now().After(deadline) {
			t.Fatalf("the erasure was not resumed: %v", status(p))
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := status(p)
	// Every version's record is erased; the pump retires version documents
	// once audited, so few if any are left to erase.
	if e := s["erased"].(map[string]any); e["records"] != 400.0 || e["todos"] != 100.0 || s["run"] != 1.0 {
		t.Fatalf("the resumed erasure: %v", s)
	}
	b, err := os.ReadFile(filepath.Join(dir, "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secret)) {
		t.Fatal("the store's file still holds the erased values")
	}
}
