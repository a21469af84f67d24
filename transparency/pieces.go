package transparency

import "golang.org/x/mod/sumdb/tlog"

// A partial tile or entry bundle grows with every append until it is
// full, and the log serves it at every width a checkpoint had. Written
// whole at each width, a tile would cost each append the bytes of its
// whole partial tiles (an entry bundle is up to 255 leaves), however few
// leaves the append adds; kept at each width, it would leave that many
// bytes behind as well.
//
// So the document of a partial tile at width w may hold only the hashes or
// entries from a narrower width on (its From), the rest being the
// document of that width, which may continue another in turn: a chain of
// pieces. A document once written always reads as its tile, so a chain
// stays whole whoever writes which pieces, and integrators that write the
// same width differently (one knows the chain before, one does not)
// both write a true document. Full tiles are written whole.

// pieces are the widths of a partial tile's chain as this process wrote
// it: 0, then the width each of its documents ends at, the last the
// tile's width.
type pieces []int

// maxPieces bounds a chain, and so the documents a read of one tile takes.
const maxPieces = 16

// tileKey names a tile of the log whatever its width: L is -1 for an entry
// bundle.
type tileKey struct {
	L int
	N int64
}

func keyOf(t tlog.Tile) tileKey { return tileKey{L: t.L, N: t.N} }

// grow returns where the document of width w begins, and the chain that
// gives, when p is the chain of the same tile at a narrower width (nil
// when unknown: the document is then whole). The new piece takes in the
// pieces before it that are no larger than it, as a binary counter
// carries, so each entry is rewritten a few times at most while its tile
// fills, and a chain's pieces shrink towards its end.
func (p pieces) grow(w int) (from int, next pieces) {
	if len(p) < 2 || p[len(p)-1] >= w || len(p) >= maxPieces {
		return 0, pieces{0, w}
	}
	k := len(p) - 1
	size := w - p[k]
	for k > 0 && p[k]-p[k-1] <= size {
		size += p[k] - p[k-1]
		k--
	}
	next = append(append(make(pieces, 0, k+2), p[:k+1]...), w)
	return p[k], next
}
