package transparency

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

// BenchmarkWitnessedPass measures what three witnesses (one ML-DSA-44, two
// Ed25519, in process over loopback HTTP) add to the wait from a write to
// its cosigned checkpoint under 200 writes a second: each pass appends the
// 200 versions of one second, as the standalone integrator does each
// second, and signs, has cosigned, anchors and publishes a checkpoint. It
// reports the pass's p50 and p99 with and without the witnesses; the
// difference is their delay. With witnesses it also reports the round
// alone (round-p50, round-p99): the checkpoint of the pass submitted
// again to the three at once, each cosigning it again, the answers
// verified and merged.
func BenchmarkWitnessedPass(b *testing.B) {
	b.Run("no witnesses", func(b *testing.B) { benchmarkWitnessedPass(b, 0) })
	b.Run("3 witnesses", func(b *testing.B) { benchmarkWitnessedPass(b, 3) })
}

func benchmarkWitnessedPass(b *testing.B, witnesses int) {
	f := newFixture(b)
	in := f.integrator()
	if witnesses > 0 {
		_, policy := startWitnesses(b, testKeys, witnesses, witnesses)
		in.Witnessing = &Witnessing{Policy: policy}
	}
	var took, rounds []time.Duration
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		var recs []todo.AuditRecord
		for j := range 200 {
			recs = append(recs, chainAt(b, "alice", fmt.Sprintf("w%d-%d", i, j), 1, start.Add(time.Duration(i)*time.Second))...)
		}
		put(b, f.audit, recs)
		b.StartTimer()
		began := time.Now()
		res, err := in.Run(context.Background())
		took = append(took, time.Since(began))
		if err != nil || res.Appended != len(recs) || !res.Published {
			b.Fatalf("%+v %v", res, err)
		}
		if in.Witnessing != nil {
			rounds = append(rounds, witnessRound(b, in))
		}
	}
	if len(rounds) > 0 {
		slices.Sort(rounds)
		b.ReportMetric(float64(rounds[len(rounds)/2].Microseconds())/1000, "round-p50-ms")
		b.ReportMetric(float64(rounds[len(rounds)*99/100].Microseconds())/1000, "round-p99-ms")
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// witnessRound times one witnessing of the published checkpoint.
func witnessRound(b *testing.B, in *Integrator) time.Duration {
	b.StopTimer()
	defer b.StartTimer()
	ctx := context.Background()
	st, err := loadState(ctx, in.Leases, nil)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := Checkpoint{Origin: in.Keys.Signer.Name(), Size: st.Size, Root: st.Root}.Sign(in.Keys.Signers()...)
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	if _, signed, err := in.witness(ctx, st, msg); err != nil || len(signed) != len(in.Witnessing.Policy.Witnesses) {
		b.Fatalf("%v %v", signed, err)
	}
	return time.Since(began)
}
