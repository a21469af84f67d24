package transparency

import "golang.org/x/mod/sumdb/tlog"

// edge is what an integrator keeps of the last state whose tiles it wrote,
// so that the next append reads none of it back: the state, the stored
// hashes of its tree that an append to it reads (the roots of the complete
// subtrees the tree is made of, and the hashes in its partial tiles) and
// the entries of its partial entry bundle, with the chains of pieces its
// partial tiles were written as, where known. They were computed from the
// committed leaves, so they need no check against the tree's root; what
// the tree's root is, its hashes are, whatever the store holds meanwhile.
type edge struct {
	st      *state
	hashes  map[int64]tlog.Hash
	entries [][]byte
	pieces  map[tileKey]pieces
}

// of returns e when it is the edge of the tree t, else nil.
func (e *edge) of(t tlog.Tree) *edge {
	if e == nil || e.st == nil || e.st.tree() != t {
		return nil
	}
	return e
}

// edgeOf computes the edge of st from a reader of its stored hashes and
// the entries of its last bundle.
func edgeOf(st *state, hr tlog.HashReader, last [][]byte) (edge, error) {
	indexes := edgeIndexes(st.Size)
	hs, err := hr.ReadHashes(indexes)
	if err != nil {
		return edge{}, err
	}
	e := edge{st: st, hashes: make(map[int64]tlog.Hash, len(indexes))}
	for i, x := range indexes {
		e.hashes[x] = hs[i]
	}
	if st.Size%tileWidth != 0 {
		e.entries = last
	}
	return e, nil
}

// edgeIndexes lists the stored hashes of a tree of n leaves that appending
// to it reads: the roots of the complete subtrees it is made of, which the
// new leaves' hashes and the new root join, and the hashes in its partial
// tiles, which the new tiles repeat.
func edgeIndexes(n int64) []int64 {
	var out []int64
	var start int64
	for level := 62; level >= 0; level-- {
		if n&(1<<level) != 0 {
			out = append(out, tlog.StoredHashIndex(level, start>>level))
			start += 1 << level
		}
	}
	for level := 0; n>>level > 0; level += TileHeight {
		count := n >> level // the complete subtrees of this height
		for k := count - count%tileWidth; k < count; k++ {
			out = append(out, tlog.StoredHashIndex(level, k))
		}
	}
	return out
}

// reader reads the hashes e holds from e and any other from base.
func (e *edge) reader(base tlog.HashReader) tlog.HashReader {
	return overlay(base, func(x int64) (tlog.Hash, bool, error) {
		h, ok := e.hashes[x]
		return h, ok, nil
	})
}

// overlay is a hash reader that answers the indexes own has itself and
// reads the others from base, in one call.
func overlay(base tlog.HashReader, own func(x int64) (tlog.Hash, bool, error)) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		var missing []int64
		var fromBase []int // where in out each of missing goes
		for i, x := range indexes {
			h, ok, err := own(x)
			switch {
			case err != nil:
				return nil, err
			case ok:
				out[i] = h
			default:
				missing = append(missing, x)
				fromBase = append(fromBase, i)
			}
		}
		if len(missing) == 0 {
			return out, nil
		}
		hs, err := base.ReadHashes(missing)
		if err != nil {
			return nil, err
		}
		for j, i := range fromBase {
			out[i] = hs[j]
		}
		return out, nil
	})
}
