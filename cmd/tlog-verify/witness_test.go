package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/internal/historytest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency"
	"github.com/todoaudit/todo/transparency/witness"
)

// witnesses starts n witnesses of the witness command's package over
// httptest, trusting the log key vkey, and writes a policy of them with
// the quorum given: the servers, and the policy's path.
func witnesses(t *testing.T, vkey string, n int, quorum string) ([]*httptest.Server, string) {
	var srvs []*httptest.Server
	var text, names strings.Builder
	for i := range n {
		name := fmt.Sprintf("w%d", i+1)
		typ := witness.Ed25519
		if i%2 == 1 {
			typ = witness.MLDSA44
		}
		key, err := witness.LoadOrCreateKey(filepath.Join(t.TempDir(), "witness.key"), "witness.test/"+name, typ)
		if err != nil {
			t.Fatal(err)
		}
		w, err := witness.Open(filepath.Join(t.TempDir(), "witness.db"), key, []string{vkey}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(w.Handler())
		t.Cleanup(func() { srv.Close(); w.Close() })
		srvs = append(srvs, srv)
		fmt.Fprintf(&text, "witness %s %s %s\n", name, key.VerifierKey, srv.URL)
		fmt.Fprintf(&names, " %s", name)
	}
	fmt.Fprintf(&text, "group witnesses %s%s\nquorum witnesses\n", quorum, names.String())
	path := filepath.Join(t.TempDir(), "policy")
	if err := os.WriteFile(path, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return srvs, path
}

// TestWitnessedProduct runs the handler with three witnesses and a 2-of-3
// policy: its checkpoints carry their cosignatures, one witness down
// leaves a quorum, two down leave verifiers refusing, and saying why.
func TestWitnessedProduct(t *testing.T) {
	skey, vkey, err := note.GenerateKey(nil, "todoaudit.local/log")
	if err != nil {
		t.Fatal(err)
	}
	srvs, policyPath := witnesses(t, vkey, 3, "2")
	a := apitest.Start(t, map[string]string{"AUDIT_PUMP": "on", "LOG_SIGNING_KEY": skey, "LOG_WITNESS_POLICY": policyPath}, nil)
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	write := func(title string) string {
		id := c.Create("Work", title)["id"].(string)
		if err := a.DrainAudit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := a.IntegrateLog(context.Background()); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// witnessed is what history/verify says of the witnesses.
	witnessed := func(id string) (logged int, w transparency.Witnessed) {
		var body struct {
			Logged    int
			Witnessed transparency.Witnessed
		}
		if err := json.Unmarshal(apitest.Want(t, c.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200).Body, &body); err != nil {
			t.Fatal(err)
		}
		return body.Logged, body.Witnessed
	}
	dir := t.TempDir()
	served := apitest.Want(t, c.Do("GET", "/api/log/policy", nil), 200).Body
	if !strings.HasPrefix(string(served), "log "+vkey+"\n") {
		t.Fatalf("the served policy does not start with the log's key:\n%s", served)
	}
	policy := filepath.Join(dir, "served.policy")
	if err := os.WriteFile(policy, served, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func() (int, string) {
		return verify("-key", vkey, "-policy", policy, "-state", filepath.Join(dir, "state.json"), "checkpoint", c.Base+"/api/log/checkpoint")
	}

	id := write("one")
	if code, out := check(); code != 0 || !strings.Contains(out, "cosigned by w1 (") || !strings.Contains(out, "w3 (") {
		t.Fatalf("all witnesses up: exit %d: %s", code, out)
	}
	// The policy names the log: its key is the one, and another is refused.
	if code, out := verify("-policy", policy, "-state", filepath.Join(dir, "state.json"), "checkpoint", c.Base+"/api/log/checkpoint"); code != 0 {
		t.Fatalf("the key from the policy: exit %d: %s", code, out)
	}
	_, otherKey, err := note.GenerateKey(nil, "todoaudit.local/log")
	if err != nil {
		t.Fatal(err)
	}
	otherLog := filepath.Join(dir, "other.policy")
	if err := os.WriteFile(otherLog, []byte("log "+otherKey+"\n"+strings.SplitN(string(served), "\n", 2)[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := verify("-key", vkey, "-policy", otherLog, "-state", filepath.Join(dir, "state.json"), "checkpoint", c.Base+"/api/log/checkpoint"); code != 2 || !strings.Contains(out, "not one of the logs") {
		t.Fatalf("a policy of another log: exit %d: %s", code, out)
	}
	if logged, w := witnessed(id); logged != 1 || !w.Quorum || len(w.Cosigners) != 3 || w.Cosigners[0].Time.IsZero() {
		t.Fatalf("history/verify with all witnesses up: logged %d, %+v", logged, w)
	}
	srvs[2].Close()
	write("two")
	if code, out := check(); code != 0 || !strings.Contains(out, "w2 (") || strings.Contains(out, "w3 (") {
		t.Fatalf("one witness down: exit %d: %s", code, out)
	}
	srvs[1].Close()
	write("three")
	code, out := check()
	if code != 1 || !strings.Contains(out, `lacks the witness quorum "witnesses" (2 of w1 w2 w3): cosigned by only w1`) {
		t.Fatalf("two witnesses down: exit %d: %s", code, out)
	}
	if logged, w := witnessed(id); logged != 0 || w.Quorum || !strings.Contains(w.Reason, "only w1") {
		t.Fatalf("history/verify with two witnesses down: logged %d, %+v", logged, w)
	}
}

// splitLog is a log served over HTTP as the handler serves /api/log,
// with a store its test can roll back.
type splitLog struct {
	leases store.Container
	log    *transparency.Log
	keys   *transparency.Keys
	url    string
}

func newSplitLog(t *testing.T, keys *transparency.Keys) *splitLog {
	cs := bolttest.Open(t, partition.Hierarchical, nil)
	l := &splitLog{leases: cs.Leases, keys: keys}
	l.log = &transparency.Log{Leases: cs.Leases, Keys: keys}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/log/checkpoint", func(w http.ResponseWriter, r *http.Request) {
		msg, _, err := l.log.Checkpoint(r.Context())
		if err != nil {
			problem.Write(w, err)
			return
		}
		w.Write(msg)
	})
	mux.HandleFunc("GET /api/log/consistency", func(w http.ResponseWriter, r *http.Request) {
		from, _ := strconv.ParseInt(r.URL.Query().Get("from"), 10, 64)
		to, _ := strconv.ParseInt(r.URL.Query().Get("to"), 10, 64)
		p, err := l.log.Consistency(r.Context(), from, to)
		if err != nil {
			problem.Write(w, err)
			return
		}
		json.NewEncoder(w).Encode(transparency.ConsistencyProof{From: from, To: to, Proof: p})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	l.url = srv.URL + "/api/log"
	return l
}

// integrate appends the versions of audit to the log, with a new
// integrator anchoring in anchors.
func (l *splitLog) integrate(t *testing.T, auditC store.Container, anchors string, wi *transparency.Witnessing) {
	t.Helper()
	in := &transparency.Integrator{Audit: auditC, Leases: l.leases, Keys: l.keys, Anchors: &transparency.DirAnchors{Dir: anchors},
		Log: slog.New(slog.DiscardHandler), Witnessing: wi}
	if _, err := in.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func versions(t *testing.T, auditC store.Container, owner string, n int) {
	recs := historytest.Versions(t, todo.Todo{ID: owner + "-todo", Type: todo.TypeTodo, UserID: owner,
		Fields: todo.Fields{Category: "Work", Title: "t"}, CreatedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}, n)
	if err := (audit.Outcome{Records: recs}).Write(context.Background(), auditC); err != nil {
		t.Fatal(err)
	}
}

// TestSplitView rolls the log's store back behind a tree a witness
// cosigned and a user accepted, and grows it again differently (the
// anchors are gone too: whoever rewrote the store reached them), to a
// larger tree and to a smaller one: the witness refuses to cosign, the
// integrator reports it, tlog-verify with its remembered checkpoint
// refuses the new tree, and monitor exits 1, running its command, both
// with that memory and without it, from what the witness cosigned.
func TestSplitView(t *testing.T) {
	for _, regrown := range []int{5, 1} {
		t.Run(fmt.Sprintf("regrown to %d", 2+regrown), func(t *testing.T) { splitView(t, regrown) })
	}
}

func splitView(t *testing.T, regrown int) {
	skey, vkey, err := note.GenerateKey(nil, "todoaudit.local/log")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := transparency.NewKeys(skey)
	if err != nil {
		t.Fatal(err)
	}
	_, policyPath := witnesses(t, vkey, 1, "1")
	policyText, _ := os.ReadFile(policyPath)
	policy, err := transparency.ParsePolicy(policyText)
	if err != nil {
		t.Fatal(err)
	}
	var reported error
	wi := &transparency.Witnessing{Policy: policy, Report: func(err error) { reported = err }}
	l := newSplitLog(t, keys)
	auditC := bolttest.Open(t, partition.Hierarchical, nil).Audit
	anchors := t.TempDir()
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	verifyLog := func() (int, string) {
		return verify("-key", vkey, "-policy", policyPath, "-state", state, "checkpoint", l.url+"/checkpoint")
	}

	versions(t, auditC, "alice", 2)
	l.integrate(t, auditC, anchors, wi)
	// The log's state and checkpoint at size 2, to roll back to.
	var saved []store.Item
	for _, id := range []string{"tlog-state", "tlog-checkpoint"} {
		it, err := l.leases.Read(context.Background(), store.PartitionKey{id}, id)
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, it)
	}
	if code, out := verifyLog(); code != 0 {
		t.Fatalf("size 2: exit %d: %s", code, out)
	}
	versions(t, auditC, "alice", 4)
	l.integrate(t, auditC, anchors, wi)
	if code, out := verifyLog(); code != 0 || !strings.Contains(out, "size 4") {
		t.Fatalf("size 4: exit %d: %s", code, out)
	}
	if code, out := verify("-key", vkey, "-policy", policyPath, "-state", state, "monitor", "-count", "1", l.url); code != 0 {
		t.Fatalf("monitor of a consistent log: exit %d: %s", code, out)
	}

	// The split: the log of size 2 back, and other versions on it.
	for _, it := range saved {
		if _, err := l.leases.Upsert(context.Background(), it.PartitionKey, it.Body, nil); err != nil {
			t.Fatal(err)
		}
	}
	other := bolttest.Open(t, partition.Hierarchical, nil).Audit
	versions(t, other, "mallory", regrown)
	l.integrate(t, other, t.TempDir(), wi)
	msg, c, err := l.log.Checkpoint(context.Background())
	if err != nil || c.Size != int64(2+regrown) {
		t.Fatalf("the rewritten log: %v %v", c, err)
	}
	if len(policy.Cosigners(msg)) != 0 {
		t.Fatal("the witness cosigned the rewritten tree")
	}
	if reported == nil || !strings.Contains(todo.Message(reported), "witness w1") {
		t.Fatalf("the integrator reported %v", reported)
	}
	if code, out := verify("-key", vkey, "-state", state, "checkpoint", l.url+"/checkpoint"); code != 1 || !strings.Contains(out, "remembered") {
		t.Fatalf("tlog-verify with a remembered checkpoint: exit %d: %s", code, out)
	}
	for name, state := range map[string]string{"remembering": state, "new": filepath.Join(dir, "new.json")} {
		alarm := filepath.Join(dir, "alarm-"+name)
		code, out := verify("-key", vkey, "-policy", policyPath, "-state", state, "monitor", "-count", "1", "-exec", "echo \"$TLOG_VERIFY_PROBLEM\" > "+alarm, l.url)
		raised, _ := os.ReadFile(alarm)
		if code != 1 || !strings.Contains(out, "INCONSISTENT") || !strings.Contains(string(raised), "witness w1") && name == "new" {
			t.Errorf("monitor, %s: exit %d: %s; the command wrote %q", name, code, out, raised)
		}
	}
}
