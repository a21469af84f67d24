package transparency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency/witness"
)

// testWitness is a witness of the witness package served over httptest.
type testWitness struct {
	name string
	key  *witness.Key
	srv  *httptest.Server
}

// startWitnesses starts n witnesses trusting keys, the first with an
// ML-DSA-44 key and the others Ed25519, and returns them with a policy
// needing quorum of them.
func startWitnesses(t testing.TB, keys *Keys, n, quorum int) ([]*testWitness, *Policy) {
	var ws []*testWitness
	var text strings.Builder
	var names []string
	for i := range n {
		typ := witness.Ed25519
		if i == 0 {
			typ = witness.MLDSA44
		}
		name := fmt.Sprintf("w%d", i+1)
		file, err := witness.GenerateKey("witness.test/"+name, typ)
		if err != nil {
			t.Fatal(err)
		}
		key, err := witness.NewKey(file)
		if err != nil {
			t.Fatal(err)
		}
		w, err := witness.Open(filepath.Join(t.TempDir(), "witness.db"), key, keys.VerifierKeys(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(w.Handler())
		t.Cleanup(func() { srv.Close(); w.Close() })
		ws = append(ws, &testWitness{name: name, key: key, srv: srv})
		fmt.Fprintf(&text, "witness %s %s %s\n", name, key.VerifierKey, srv.URL)
		names = append(names, name)
	}
	fmt.Fprintf(&text, "group all-witnesses %d %s\nquorum all-witnesses\n", quorum, strings.Join(names, " "))
	p, err := ParsePolicy([]byte(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	return ws, p
}

// published is the stored checkpoint document.
func published(t testing.TB, f *fixture) checkpointDoc {
	t.Helper()
	var d checkpointDoc
	if _, err := read(context.Background(), f.leases, checkpointID, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func cosignerNames(cs []Cosignature) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.Witness)
	}
	return strings.Join(names, " ")
}

func TestWitnessedCheckpoints(t *testing.T) {
	f := newFixture(t)
	ws, policy := startWitnesses(t, testKeys, 3, 2)
	var refusals []string
	var reported error
	in := f.integrator()
	in.Witnessing = &Witnessing{Policy: policy, Report: func(err error) { reported = err }, Refused: func(w string) { refusals = append(refusals, w) }}
	put(t, f.audit, chain(t, "alice", "a", 3))
	run(t, in)
	d := published(t, f)
	signed, err := policy.Check([]byte(d.Note))
	if err != nil || cosignerNames(signed) != "w1 w2 w3" {
		t.Fatalf("the checkpoint is cosigned by %q (%v), want w1 w2 w3:\n%s", cosignerNames(signed), err, d.Note)
	}
	t.Logf("a checkpoint cosigned by its three witnesses:\n%s", d.Note)
	if d.Publish != PublishAlways || cosignerNames(d.Cosigners) != "w1 w2 w3" {
		t.Fatalf("checkpoint document records %q and %v", d.Publish, d.Cosigners)
	}
	served, _, err := f.log().Checkpoint(context.Background())
	if err != nil || string(served) != d.Note {
		t.Fatalf("served %q, %v", served, err)
	}

	// The log forgets what the witnesses hold: each answers 409 with its
	// size, and the integrator proves from it.
	if err := f.leases.Delete(context.Background(), store.PartitionKey{witnessesID}, witnessesID, nil); err != nil {
		t.Fatal(err)
	}
	put(t, f.audit, chain(t, "alice", "a", 5))
	run(t, in)
	if signed, err := policy.Check([]byte(published(t, f).Note)); err != nil || len(signed) != 3 {
		t.Fatalf("after a 409 round: %v, %v", signed, err)
	}

	// One witness down: the log integrates, and 2 of 3 is a quorum.
	ws[2].srv.Close()
	put(t, f.audit, chain(t, "alice", "a", 7))
	if res := run(t, in); !res.Published || res.Size != 7 {
		t.Fatalf("with one witness down: %+v", res)
	}
	if signed, err := policy.Check([]byte(published(t, f).Note)); err != nil || cosignerNames(signed) != "w1 w2" {
		t.Fatalf("with one witness down: %q, %v", cosignerNames(signed), err)
	}

	// Two down: still published (PublishAlways), but short of the quorum.
	ws[1].srv.Close()
	put(t, f.audit, chain(t, "alice", "a", 8))
	run(t, in)
	_, err = policy.Check([]byte(published(t, f).Note))
	if !errors.Is(err, ErrNoQuorum) || !strings.Contains(err.Error(), `"all-witnesses" (2 of w1 w2 w3)`) || !strings.Contains(err.Error(), "only w1") {
		t.Fatalf("with two witnesses down: %v", err)
	}

	// Held back until the quorum, it is not published.
	in.Witnessing.OnlyWithQuorum = true
	put(t, f.audit, chain(t, "alice", "a", 9))
	if _, err := in.Run(context.Background()); !todo.IsKind(err, todo.Unavailable) || !errors.Is(err, ErrNoQuorum) {
		t.Fatalf("held back: %v", err)
	}
	if d := published(t, f); d.Size != 8 {
		t.Fatalf("a checkpoint without its quorum was published: size %d", d.Size)
	}
	if reported != nil || len(refusals) > 0 {
		t.Fatalf("witnesses that were down reported as refusing: %v %v", reported, refusals)
	}
}

// TestSplitViewRefused rolls the store back behind a tree a witness
// cosigned and grows it differently, with the anchors gone too (whoever
// rewrote the store could reach them): the witness refuses, and the
// integrator logs, reports and counts it.
func TestSplitViewRefused(t *testing.T) {
	f := newFixture(t)
	_, policy := startWitnesses(t, testKeys, 1, 1)
	var refusals []string
	var reported error
	in := f.integrator()
	in.Witnessing = &Witnessing{Policy: policy, Report: func(err error) { reported = err }, Refused: func(w string) { refusals = append(refusals, w) }}
	put(t, f.audit, chain(t, "alice", "a", 2))
	run(t, in)
	before, err := loadState(context.Background(), f.leases, nil)
	if err != nil {
		t.Fatal(err)
	}
	put(t, f.audit, chain(t, "alice", "a", 4))
	run(t, in)
	if _, err := policy.Check([]byte(published(t, f).Note)); err != nil {
		t.Fatal(err)
	}

	// Roll the state back to size 2 and let it grow again with other
	// versions, under a fresh anchor directory and a fresh integrator.
	b, _ := json.Marshal(before)
	if _, err := f.leases.Upsert(context.Background(), store.PartitionKey{stateID}, b, nil); err != nil {
		t.Fatal(err)
	}
	f2 := &fixture{audit: newFixture(t).audit, leases: f.leases, anchors: &DirAnchors{Dir: t.TempDir()}, leafIndex: f.leafIndex}
	put(t, f2.audit, chain(t, "mallory", "b", 5))
	var logged strings.Builder
	in2 := f2.integrator()
	in2.Log = slog.New(slog.NewTextHandler(&logged, nil))
	in2.Witnessing = &Witnessing{Policy: policy, Report: func(err error) { reported = err }, Refused: func(w string) { refusals = append(refusals, w) }}
	run(t, in2)
	d := published(t, f2)
	if signed := policy.Cosigners([]byte(d.Note)); len(signed) != 0 {
		t.Fatalf("the witness cosigned the rewritten tree of size %d", d.Size)
	}
	if reported == nil || !strings.Contains(todo.Message(reported), "witness w1 refused") || len(refusals) != 1 || refusals[0] != "w1" {
		t.Fatalf("reported %v, counted %v", reported, refusals)
	}
	if !strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "witness=w1") || !strings.Contains(logged.String(), "witnessSize=4") {
		t.Fatalf("logged:\n%s", logged.String())
	}
}
