package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// logAudit reads the admin's audit of the whole transparency log.
func logAudit(t *testing.T, p *proc) (verified bool, entries, pending float64, problems []any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.url("/api/manage/log/verify"), nil)
	req.Header.Set("X-User-Id", "auditor")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Verified         bool
		Entries, Pending float64
		Problems         []any
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != 200 {
		t.Fatalf("log audit: %d %v", resp.StatusCode, err)
	}
	return a.Verified, a.Entries, a.Pending, a.Problems
}

// The handler is killed with SIGKILL three times while writes keep coming
// and the transparency log integrates them; after the last restart the log
// catches up with one tree holding every audited version exactly once: no
// gap, no duplicate, and every checkpoint anchored extends the one before
// (the integrator would refuse to sign otherwise).
func TestKill9DuringLogIntegration(t *testing.T) {
	dir := t.TempDir()
	env := []string{"DATA_DIR=" + dir, "ADMIN_USERS=auditor"}
	p := startProc(t, env...)
	var created atomic.Int64
	for round := range 3 {
		var wg sync.WaitGroup
		stop := time.Now().Add(time.Duration(400+300*round) * time.Millisecond)
		for w := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; time.Now().Before(stop); i++ {
					resp, err := http.Post(p.url("/api/todos"), "application/json",
						strings.NewReader(fmt.Sprintf(`{"category":"Work","title":"r%d w%d %d"}`, round, w, i)))
					if err != nil {
						return
					}
					if resp.StatusCode == http.StatusCreated {
						created.Add(1)
					}
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		// The log integrates every second: the kill lands in or between
		// passes, wherever it falls.
		time.Sleep(time.Duration(700+150*round) * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		p = startProc(t, env...)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		verified, entries, pending, problems := logAudit(t, p)
		if verified && pending == 0 && entries >= float64(created.Load()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log after kills: verified %v, %v entries for %d acknowledged creates, %v pending, problems %v; stderr %s",
				verified, entries, created.Load(), pending, problems, p.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
