package transparency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// damage is what a reader of the log found damaged, for the integrator to
// repair on its next pass.
type damage struct{ err atomic.Pointer[error] }

// Damaged tells the integrator that a reader of the log (a proof, a
// verification) found a tile that does not give the checkpoint's tree, or
// a stored checkpoint that does not verify. Health reports the log
// degraded at once, and the next pass repairs what it can.
func (in *Integrator) Damaged(err error) {
	in.damage.err.Store(&err)
	in.report(todo.Wrap(todo.Unavailable, err, "transparency log: damaged ("+todo.Message(err)+"); repairing from its entry bundles and anchors"))
}

// takeDamage returns the damage reported since the last pass, if any.
func (in *Integrator) takeDamage() error {
	if p := in.damage.err.Swap(nil); p != nil {
		return *p
	}
	return nil
}

// isDamage tells an error of reading the log's own documents (a tile that
// does not give the tree, a document that does not decode) from a store
// that failed to answer.
func isDamage(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch todo.KindOf(err) {
	case todo.Unavailable, todo.Throttled, todo.PreconditionFailed, todo.Conflict, todo.NotFound:
		return false
	}
	return true
}

// repair rebuilds the hash tiles of st's tree from its leaves: the entry
// bundles of the tree st extends, and st's own leaves. It writes them only
// when the tree they give has st's root and extends the newest anchored
// checkpoint; otherwise it writes nothing, refuses the log (health reports
// it, nothing is signed) and says why. A damaged entry bundle cannot be
// repaired this way: its leaves are the log's only copy of the order.
func (in *Integrator) repair(ctx context.Context, st *state, cause error) error {
	tr := newTileReader(ctx, in.Leases)
	var hashes []tlog.Hash
	hr := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			if x < 0 || x >= int64(len(hashes)) {
				return nil, fmt.Errorf("stored hash %d is beyond the leaves read", x)
			}
			out[i] = hashes[x]
		}
		return out, nil
	})
	n := int64(0)
	add := func(leaf []byte) error {
		hs, err := tlog.StoredHashes(n, leaf, hr)
		hashes, n = append(hashes, hs...), n+1
		return err
	}
	for b := int64(0); b*tileWidth < st.PrevSize; b++ {
		entries, err := tr.entries(bundleTile(st.PrevSize, b))
		if err != nil {
			return in.refuse(st, nil, fmt.Errorf("%v, and entry bundle %d does not read either: %w", cause, b, err))
		}
		for _, e := range entries {
			if err := add(e); err != nil {
				return err
			}
		}
	}
	for _, e := range st.Leaves {
		if err := add(e); err != nil {
			return err
		}
	}
	root, err := tlog.TreeHash(st.Size, hr)
	if err != nil {
		return err
	}
	if root != st.Root {
		return in.refuse(st, nil, fmt.Errorf("%v, and the log's leaves give root %s, not the state's %s", cause, root, st.Root))
	}
	note, err := in.Anchors.Newest(ctx)
	if err != nil {
		return err
	}
	if note != nil {
		c, err := OpenCheckpoint(note, in.Keys.Verifier)
		if err != nil {
			return in.refuse(st, nil, fmt.Errorf("the newest anchored checkpoint: %w", err))
		}
		if err := extendsAnchor(hr, st.tree(), c); err != nil {
			return in.refuse(st, &c, fmt.Errorf("%v, and the log's leaves do not extend the anchor: %w", cause, err))
		}
	}
	var docs []store.Upsert
	for _, t := range tlog.NewTiles(TileHeight, 0, st.Size) {
		want, err := tlog.ReadTileData(t, hr)
		if err != nil {
			return err
		}
		if got, err := tr.read(t); err == nil && bytes.Equal(got, want) {
			continue
		}
		id := tileID(t)
		docs = append(docs, store.Upsert{Container: in.Leases.Spec().Name, PartitionKey: store.PartitionKey{id},
			Doc: tileDoc{ID: id, Data: want}.appendJSON(nil)})
	}
	if err := in.write(ctx, docs); err != nil {
		return err
	}
	in.reset()
	in.Log.Warn("transparency log: repaired", "damage", cause.Error(), "tiles", len(docs), "size", st.Size)
	return nil
}
