package transparency

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"golang.org/x/mod/sumdb/tlog"
)

// VersionRef names one version of an entity.
type VersionRef struct {
	EntityKey string
	Version   int64
}

// Locate returns the leaf index of each version, -1 for a version not in
// the log yet. The indices are read at once, a page of versions costing
// one round trip rather than one each. An index may lie beyond the
// latest checkpoint: the integrator writes them before it signs.
func (l *Log) Locate(ctx context.Context, refs []VersionRef) ([]int64, error) {
	return l.index().locate(ctx, refs)
}

// LeafAt is a version's leaf claimed to be at an index of the log, in any
// of the leaf encodings.
type LeafAt struct {
	Index int64
	Leaf  Leaf
}

// leavesAtOnce bounds the leaves VerifyLeaves checks with one read of the
// tiles.
const leavesAtOnce = 4096

// VerifyLeaves checks, offline, that each leaf is in the checkpoint's tree
// at its index, reading the tiles through tr and checking every tile it
// reads against the checkpoint's root. It sorts leaves by index, so that
// neighbours share their tiles; the error names the index of the first
// leaf that is not there.
func VerifyLeaves(c Checkpoint, tr tlog.TileReader, leaves []LeafAt) error {
	slices.SortFunc(leaves, func(a, b LeafAt) int { return cmp.Compare(a.Index, b.Index) })
	hr := tlog.TileHashReader(c.Tree(), tr)
	for start := 0; start < len(leaves); start += leavesAtOnce {
		chunk := leaves[start:min(start+leavesAtOnce, len(leaves))]
		idx := make([]int64, len(chunk))
		for i, l := range chunk {
			if l.Index < 0 || l.Index >= c.Size {
				return fmt.Errorf("leaf index %d is outside the checkpoint's tree of size %d", l.Index, c.Size)
			}
			idx[i] = tlog.StoredHashIndex(0, l.Index)
		}
		hs, err := hr.ReadHashes(idx)
		if err != nil {
			return fmt.Errorf("the tiles do not give the checkpoint's tree: %w", err)
		}
		for i, h := range hs {
			if !chunk[i].Leaf.LoggedAs(h) {
				return fmt.Errorf("leaf %d of the log is another version's", chunk[i].Index)
			}
		}
	}
	return nil
}
