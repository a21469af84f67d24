package transparency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency/witnessproto"
)

// Witnessing has the checkpoints an integrator signs cosigned by the
// witnesses of a policy (C2SP tlog-witness add-checkpoint), before they
// are anchored and published. A witness that is down, slow or refuses
// never stops the log: the checkpoint goes on with the cosignatures it
// got, unless OnlyWithQuorum holds it back until it has its quorum.
type Witnessing struct {
	Policy *Policy
	// Client sends the submissions; http.DefaultClient when nil. Each
	// submission is bounded by Wait whatever the client's timeout.
	Client *http.Client
	// Wait bounds one witness's answer; DefaultWitnessWait when zero.
	Wait time.Duration
	// OnlyWithQuorum publishes a checkpoint only when it carries the
	// policy's quorum; otherwise it is published with whatever
	// cosignatures it got (PublishAlways).
	OnlyWithQuorum bool
	// Report, when set, gets nil after each round in which no witness
	// found the log inconsistent, and an error naming those that did.
	Report func(error)
	// Refused, when set, hears each witness that found the log
	// inconsistent with the tree it cosigned: a 422, or a size beyond the
	// log's.
	Refused func(witness string)
}

// DefaultWitnessWait bounds a witness's answer to one submission: the
// witnesses are asked at once, so it bounds what witnessing adds to a
// pass.
const DefaultWitnessWait = 5 * time.Second

// The publishing modes a checkpoint document records.
const (
	PublishAlways     = "always"
	PublishWithQuorum = "quorum"
)

func (w *Witnessing) publish() string {
	switch {
	case w == nil:
		return ""
	case w.OnlyWithQuorum:
		return PublishWithQuorum
	}
	return PublishAlways
}

// witnessesID is the document of the sizes each witness cosigned last:
// {"id", "sizes": {"<witness verifier key>": size}}, written with If-Match
// on the one read.
const witnessesID = "tlog-witnesses"

type witnessesDoc struct {
	ID    string           `json:"id"`
	Sizes map[string]int64 `json:"sizes"`
}

// submission is what one witness answered.
type submission struct {
	w       PolicyWitness
	size    int64           // the size it holds cosigned now, when known
	sig     *note.Signature // its verified cosignature
	refused error           // it found the log inconsistent
}

// witness submits msg, the checkpoint of st, to every witness of the
// policy at once and returns msg with the valid cosignatures, and who
// gave them. With OnlyWithQuorum, a checkpoint without its quorum is an
// Unavailable error.
func (in *Integrator) witness(ctx context.Context, st *state, msg []byte) ([]byte, []Cosignature, error) {
	wi := in.Witnessing
	var doc witnessesDoc
	etag, err := read(ctx, in.Leases, witnessesID, &doc)
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		return nil, nil, err
	}
	subs := make([]submission, len(wi.Policy.Witnesses))
	var wg sync.WaitGroup
	for i, w := range wi.Policy.Witnesses {
		wg.Go(func() { subs[i] = in.submit(ctx, st, msg, w, doc.Sizes[w.Key]) })
	}
	wg.Wait()

	n, err := note.Open(msg, note.VerifierList(in.Keys.Verifiers()...))
	if err != nil {
		return nil, nil, err
	}
	sizes := maps.Clone(doc.Sizes)
	if sizes == nil {
		sizes = map[string]int64{}
	}
	var refusals []error
	for _, s := range subs {
		if s.size > 0 {
			sizes[s.w.Key] = s.size
		}
		if s.sig != nil {
			n.Sigs = append(n.Sigs, *s.sig)
		}
		if s.refused != nil {
			refusals = append(refusals, s.refused)
		}
	}
	if wi.Report != nil {
		wi.Report(errors.Join(refusals...))
	}
	if !maps.Equal(sizes, doc.Sizes) {
		in.saveWitnessSizes(ctx, etag, sizes)
	}
	cosigned, err := note.Sign(n)
	if err != nil {
		return nil, nil, err
	}
	signed, qerr := wi.Policy.Check(cosigned)
	if qerr != nil && wi.OnlyWithQuorum {
		in.Log.Warn("transparency log: checkpoint held back until its witnesses cosign it", "size", st.Size, "error", qerr.Error())
		return nil, nil, todo.Wrap(todo.Unavailable, qerr, fmt.Sprintf("transparency log: the checkpoint of size %d lacks its witness quorum", st.Size))
	}
	return cosigned, signed, nil
}

// submit sends the checkpoint of st to w, from the size the log knows it
// holds, and once more from the size a 409 names.
func (in *Integrator) submit(ctx context.Context, st *state, msg []byte, w PolicyWitness, old int64) submission {
	s := submission{w: w}
	wait := in.Witnessing.Wait
	if wait <= 0 {
		wait = DefaultWitnessWait
	}
	client := in.Witnessing.Client
	if client == nil {
		client = http.DefaultClient
	}
	for attempt := 0; ; attempt++ {
		if old > st.Size {
			s.refused = in.witnessRefused(w, old, st.Size, "the witness has cosigned a larger tree than the log holds: the log was rolled back")
			return s
		}
		req := witnessproto.Request{Old: old, Checkpoint: msg}
		if old > 0 && old < st.Size {
			p, err := tlog.ProveTree(st.Size, old, newTileReader(ctx, in.Leases).hashes(st.tree()))
			if err != nil {
				in.Log.Warn("transparency log: no consistency proof for a witness", "witness", w.Name, "from", old, "to", st.Size, "error", err.Error())
				return s
			}
			req.Proof = p
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		cosig, err := witnessproto.Submit(wctx, client, w.URL, req)
		cancel()
		var stale *witnessproto.StaleError
		switch {
		case err == nil:
			sig, verr := cosignatureOf(msg, cosig, w.Verifier)
			if verr != nil {
				in.Log.Warn("transparency log: a witness answered no valid cosignature", "witness", w.Name, "size", st.Size)
				return s
			}
			s.sig, s.size = sig, st.Size
			return s
		case errors.As(err, &stale) && attempt == 0:
			old, s.size = stale.Size, stale.Size
		case todo.IsKind(err, todo.Unprocessable):
			s.refused = in.witnessRefused(w, old, st.Size, err.Error())
			return s
		default:
			in.Log.Warn("transparency log: a witness did not cosign", "witness", w.Name, "size", st.Size, "error", err.Error())
			return s
		}
	}
}

// witnessRefused logs and counts a witness that found the log
// inconsistent with the tree it cosigned: a split view, or a rollback.
func (in *Integrator) witnessRefused(w PolicyWitness, witnessSize, logSize int64, why string) error {
	in.Log.Error("transparency log: a witness refused the log's checkpoint as inconsistent with the tree it cosigned",
		"witness", w.Name, "url", w.URL, "witnessSize", witnessSize, "logSize", logSize, "error", why)
	if in.Witnessing.Refused != nil {
		in.Witnessing.Refused(w.Name)
	}
	return todo.Errorf(todo.Unavailable, "transparency log: witness %s refused the checkpoint of size %d as inconsistent with the tree of size %d it cosigned", w.Name, logSize, witnessSize)
}

// cosignatureOf verifies the cosignature lines a witness answered for
// msg and returns its signature.
func cosignatureOf(msg, lines []byte, v note.Verifier) (*note.Signature, error) {
	n, err := note.Open(append(append([]byte(nil), msg...), lines...), note.VerifierList(v))
	if err != nil {
		return nil, err
	}
	if len(n.Sigs) != 1 {
		return nil, errors.New("not one cosignature")
	}
	return &n.Sigs[0], nil
}

// saveWitnessSizes records the sizes the witnesses hold, with If-Match on
// the document read: of two integrators at once, one records, and the
// other's next round learns the sizes from the witnesses' 409s.
func (in *Integrator) saveWitnessSizes(ctx context.Context, etag string, sizes map[string]int64) {
	b, err := json.Marshal(witnessesDoc{ID: witnessesID, Sizes: sizes})
	if err != nil {
		return
	}
	if etag == "" {
		_, err = in.Leases.Create(ctx, store.PartitionKey{witnessesID}, b)
	} else {
		_, err = in.Leases.Replace(ctx, store.PartitionKey{witnessesID}, b, &store.WriteOptions{IfMatch: etag})
	}
	if err != nil && !todo.IsKind(err, todo.PreconditionFailed) && !todo.IsKind(err, todo.Conflict) {
		in.Log.Warn("transparency log: the witnesses' sizes were not saved", "error", err.Error())
	}
}
