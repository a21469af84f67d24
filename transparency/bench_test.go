package transparency

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// BenchmarkIntegrate appends batches of 1,000 new versions (100 todos of
// 10, each batch later than the one before, as new versions are) to a log
// on the embedded store, each pass signing and anchoring a checkpoint, and
// reports leaves per second and the store requests and request units the
// log spends per version: with the documents of an append written in one
// transaction, as the embedded store does, and each on its own, as on
// Cosmos DB.
func BenchmarkIntegrate(b *testing.B) {
	b.Run("one transaction", func(b *testing.B) { benchmarkIntegrate(b, false) })
	b.Run("a request a document", func(b *testing.B) { benchmarkIntegrate(b, true) })
}

func benchmarkIntegrate(b *testing.B, each bool) {
	f := newFixture(b)
	if each {
		f.leases = separately{f.leases}
	}
	in := f.integrator()
	var leaves int
	var cost store.Cost
	var took time.Duration
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		var recs []todo.AuditRecord
		for j := range 100 {
			recs = append(recs, chainAt(b, "alice", fmt.Sprintf("b%d-%d", i, j), 10, start.Add(time.Duration(i)*time.Hour))...)
		}
		put(b, f.audit, recs)
		ctx, m := store.WithMeter(context.Background())
		b.StartTimer()
		began := time.Now()
		res, err := in.Run(ctx)
		took += time.Since(began)
		if err != nil || res.Appended != len(recs) {
			b.Fatalf("%+v %v", res, err)
		}
		leaves += res.Appended
		cost.Add(m.Cost())
	}
	b.ReportMetric(float64(leaves)/took.Seconds(), "leaves/s")
	b.ReportMetric(float64(cost.Requests)/float64(leaves), "requests/leaf")
	b.ReportMetric(cost.Charge/float64(leaves), "RU/leaf")
}

// BenchmarkVerifyProof verifies one version's proof bundle in a log of
// 10,000 leaves as tlog-verify does: parse, check the checkpoint's
// signature, the leaf and the inclusion proof. It reports the bundle's
// size.
func BenchmarkVerifyProof(b *testing.B) {
	f := newFixture(b)
	in := f.integrator()
	in.MaxBatch = 5000
	var last todo.AuditRecord
	for i := range 100 {
		recs := chain(b, "alice", fmt.Sprintf("p%d", i), 100)
		put(b, f.audit, recs)
		last = recs[len(recs)-1]
	}
	run(b, in)
	ctx := context.Background()
	start := time.Now()
	p, err := f.log().Prove(ctx, last.EntityKey, last.Version)
	if err != nil {
		b.Fatal(err)
	}
	prove := time.Since(start)
	raw, err := json.Marshal(ProofBundle{Checkpoint: string(p.Checkpoint), Index: p.Index, Leaf: p.Leaf, Proof: p.Proof})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		b.ReportMetric(float64(prove.Microseconds()), "µs-to-prove")
		b.ReportMetric(float64(len(raw)), "bundle-bytes")
		b.ReportMetric(float64(len(p.Proof)), "proof-hashes")
	}()
	for b.Loop() {
		bundle, err := ParseProofBundle(raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := bundle.Verify(testKeys.Verifier); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProve serves the proofs of versions in turn, across a log of
// 10,000 leaves on the embedded store: the index document, the leaf from
// its entry bundle, and the tiles of the proof.
func BenchmarkProve(b *testing.B) {
	f := newFixture(b)
	in := f.integrator()
	in.MaxBatch = 5000
	var keys []string
	for i := range 100 {
		recs := chain(b, "alice", fmt.Sprintf("p%d", i), 100)
		put(b, f.audit, recs)
		keys = append(keys, recs[0].EntityKey)
	}
	run(b, in)
	ctx := context.Background()
	l := f.log()
	n := 0
	for b.Loop() {
		if _, err := l.Prove(ctx, keys[n%len(keys)], int64(n/len(keys)%100+1)); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
