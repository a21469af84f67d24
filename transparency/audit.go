package transparency

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/store"
)

// The kinds of problem AuditStore reports.
const (
	// A logged version the store no longer has: a todo deleted with its
	// records, or one record deleted.
	MissingFromStore = "missingFromStore"
	// A stored version the log lacks, older than the grace period.
	MissingFromLog = "missingFromLog"
	// A stored version whose hash is not the one logged: an edited record.
	HashDiffers = "hashDiffers"
	// The store's log is behind, or not an extension of, the newest
	// anchored checkpoint: the store was rolled back or rewritten.
	BehindAnchor = "storeBehindAnchor"
	// An entry bundle that is not what the tree holds.
	LogDamaged = "logDamaged"
	// A version logged more than once.
	DuplicateInLog = "duplicateInLog"
	// A stored record whose content is not what its own hash covers: an
	// edited record whose hash was left alone.
	ContentDiffers = "contentDiffers"
	// A logged version whose index document, which its proofs read, is
	// missing or locates another leaf.
	IndexDiffers = "indexDiffers"
)

// Problem is one discrepancy between the log and the store.
type Problem struct {
	Kind     string `json:"kind"`
	EntityID string `json:"entityId"`
	Version  int64  `json:"version"`
	// Index is the leaf's, for a leaf that names no version (LeafV2) and
	// whose hash no stored record has.
	Index *int64 `json:"index,omitempty"`
}

// AuditReport is the outcome of walking the whole log against the store.
type AuditReport struct {
	Verified bool      `json:"verified"`
	Entries  int64     `json:"entries"`
	Pending  int       `json:"pending"`
	Problems []Problem `json:"problems"`
}

// DefaultGrace is how old a stored record must be for its absence from
// the log to be a problem rather than pending.
const DefaultGrace = time.Minute

// AuditStore walks every leaf of the latest checkpoint against the audit
// records of the store, and the store's records against the log; records
// younger than grace that are not logged yet count as pending.
func (l *Log) AuditStore(ctx context.Context, grace time.Duration, now time.Time) (AuditReport, error) {
	rep := AuditReport{Problems: []Problem{}}
	stored, known, err := storedHashes(ctx, l.Audit)
	if err != nil {
		return rep, err
	}
	_, c, err := l.Checkpoint(ctx)
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		return rep, err
	}
	st, err := loadState(ctx, l.Leases, nil)
	if err != nil {
		return rep, err
	}
	if a, err := l.Anchors.Newest(ctx); err != nil {
		return rep, err
	} else if a != nil {
		// Both the published tree and the one integrators extend must
		// extend the anchor.
		ac, err := OpenCheckpoint(a, l.Keys.Verifier)
		if err == nil {
			err = consistent(newTileReader(ctx, l.Leases), c.Tree(), ac)
		}
		if err == nil {
			err = consistent(newTileReader(ctx, l.Leases), st.tree(), ac)
		}
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Kind: BehindAnchor})
		}
	}
	w := logWalk{stored: stored, byHash: map[string]string{}, logged: map[string]bool{}, rep: &rep}
	for key, s := range stored {
		w.byHash[s.Hash] = key
	}
	if err := w.leaves(ctx, l, c); err != nil {
		return rep, err
	}
	missing, err := w.unlogged(ctx, l, c.Size, now.Add(-grace).Unix())
	if err != nil {
		return rep, err
	}
	rep.Problems = append(rep.Problems, missing...)
	named, err := l.nameLeaves(ctx, w.unmatched, known)
	if err != nil {
		return rep, err
	}
	for _, i := range slices.Sorted(maps.Keys(w.unmatched)) {
		p := named[i]
		p.Kind, p.Index = MissingFromStore, &i
		rep.Problems = append(rep.Problems, p)
	}
	rep.Verified = len(rep.Problems) == 0
	return rep, nil
}

// logWalk is what AuditStore knows as it walks the log's leaves.
type logWalk struct {
	stored map[string]storedRef // the store's records by version key
	byHash map[string]string    // their version keys by hash
	logged map[string]bool      // the version keys of the leaves walked
	// unmatched are the indices of leaves that name no version (LeafV2)
	// and whose hash no stored record has: an edited record's leaf, or a
	// deleted one's.
	unmatched map[int64]bool
	rep       *AuditReport
}

func versionKey(entityKey string, version int64) string {
	return entityKey + "\x00" + strconv.FormatInt(version, 10)
}

// bundle checks the leaves of one entry bundle, the first at index first.
// A leaf is the version it names (LeafV1), or the stored record of its
// hash (LeafV2); each must be located by its index document and logged
// once, and a named one must have the stored record's hash.
func (w *logWalk) bundle(ctx context.Context, l *Log, first int64, leaves [][]byte) error {
	refs := make([]VersionRef, len(leaves))
	parsed := make([]Leaf, len(leaves))
	for i, b := range leaves {
		w.rep.Entries++
		leaf, err := ParseLeaf(b)
		switch {
		case err != nil:
			w.rep.Problems = append(w.rep.Problems, Problem{Kind: LogDamaged, Version: first + int64(i)})
			continue
		case leaf.Names():
			refs[i] = VersionRef{EntityKey: leaf.EntityKey(), Version: leaf.Version}
		default:
			key, ok := w.byHash[leaf.Hash]
			if !ok {
				if w.unmatched == nil {
					w.unmatched = map[int64]bool{}
				}
				w.unmatched[first+int64(i)] = true
				continue
			}
			s := w.stored[key]
			refs[i] = VersionRef{EntityKey: s.EntityKey, Version: s.Version}
			leaf.ID, leaf.Version = s.EntityID, s.Version
		}
		parsed[i] = leaf
	}
	located, err := l.Locate(ctx, refs)
	if err != nil {
		return err
	}
	for i, leaf := range parsed {
		if refs[i].EntityKey == "" {
			continue
		}
		if located[i] != first+int64(i) {
			w.rep.Problems = append(w.rep.Problems, Problem{Kind: IndexDiffers, EntityID: leaf.ID, Version: leaf.Version})
		}
		key := versionKey(refs[i].EntityKey, refs[i].Version)
		if w.logged[key] {
			w.rep.Problems = append(w.rep.Problems, Problem{Kind: DuplicateInLog, EntityID: leaf.ID, Version: leaf.Version})
			continue
		}
		w.logged[key] = true
		switch s, ok := w.stored[key]; {
		case !ok:
			w.rep.Problems = append(w.rep.Problems, Problem{Kind: MissingFromStore, EntityID: leaf.ID, Version: leaf.Version})
		case s.Hash != leaf.Hash:
			w.rep.Problems = append(w.rep.Problems, Problem{Kind: HashDiffers, EntityID: leaf.ID, Version: leaf.Version})
		case s.Edited:
			w.rep.Problems = append(w.rep.Problems, Problem{Kind: ContentDiffers, EntityID: leaf.ID, Version: leaf.Version})
		}
	}
	return nil
}

// unlogged are the problems of the stored records no leaf was walked for:
// one whose index document locates a leaf of the tree (of size size) has
// another hash than that leaf's, which is then accounted for; one older
// than cutoff (a _ts) is missing from the log, a younger one pending.
func (w *logWalk) unlogged(ctx context.Context, l *Log, size, cutoff int64) ([]Problem, error) {
	var keys []string
	var refs []VersionRef
	for key, s := range w.stored {
		if !w.logged[key] {
			keys = append(keys, key)
			refs = append(refs, VersionRef{EntityKey: s.EntityKey, Version: s.Version})
		}
	}
	located, err := l.Locate(ctx, refs)
	if err != nil {
		return nil, err
	}
	var out []Problem
	for i, key := range keys {
		s := w.stored[key]
		switch {
		case located[i] >= 0 && located[i] < size:
			delete(w.unmatched, located[i])
			out = append(out, Problem{Kind: HashDiffers, EntityID: s.EntityID, Version: s.Version})
		case s.TS >= cutoff:
			w.rep.Pending++
		default:
			out = append(out, Problem{Kind: MissingFromLog, EntityID: s.EntityID, Version: s.Version})
		}
	}
	slices.SortFunc(out, func(a, b Problem) int {
		if a.EntityID != b.EntityID {
			return strings.Compare(a.EntityID, b.EntityID)
		}
		return int(a.Version - b.Version)
	})
	return out, nil
}

// leaves walks every leaf of the tree of c, bundle by bundle. The tree's
// leaf hashes are read leavesAtOnce at a time, each read checking the
// tiles it reads against the root once (treeLeaves): the walk is one pass
// over the tiles, not a climb to the root a bundle. Tiles that do not give
// the root are read again a bundle at a time, so that each bundle they
// fail for, and each that is not what the tree holds, is LogDamaged.
func (w *logWalk) leaves(ctx context.Context, l *Log, c Checkpoint) error {
	hr := newTileReader(ctx, l.Leases).hashes(c.Tree())
	for first := int64(0); first < c.Size; first += leavesAtOnce {
		hs, err := treeLeaves(hr, leafRange(first, min(c.Size, first+leavesAtOnce)))
		for n := first / tileWidth; n*tileWidth < min(c.Size, first+leavesAtOnce); n++ {
			t := bundleTile(c.Size, n)
			ths, terr := hs, err
			if err != nil {
				ths, terr = treeLeaves(hr, leafRange(n*tileWidth, n*tileWidth+int64(t.W)))
			} else {
				ths = hs[n*tileWidth-first:]
			}
			var leaves [][]byte
			if terr == nil {
				leaves, terr = l.bundle(ctx, t, ths)
			}
			if terr != nil {
				w.rep.Problems = append(w.rep.Problems, Problem{Kind: LogDamaged, Version: n * tileWidth})
				continue
			}
			if err := w.bundle(ctx, l, n*tileWidth, leaves); err != nil {
				return err
			}
		}
	}
	return nil
}

// leafRange is the leaf indices from first up to end.
func leafRange(first, end int64) []int64 {
	idx := make([]int64, end-first)
	for i := range idx {
		idx[i] = first + int64(i)
	}
	return idx
}

// bundle reads an entry bundle and checks each entry against hs, the
// tree's leaf hashes from the bundle's first on.
func (l *Log) bundle(ctx context.Context, t tlog.Tile, hs []tlog.Hash) ([][]byte, error) {
	leaves, err := newTileReader(ctx, l.Leases).entries(t)
	if err != nil {
		return nil, err
	}
	for i, leaf := range leaves {
		if hs[i] != tlog.RecordHash(leaf) {
			return nil, todo.Errorf(todo.Internal, "entry %d of bundle %s is not the tree's leaf", i, TilePath(t))
		}
	}
	return leaves, nil
}

// storedRef is what AuditStore keeps of one stored record.
type storedRef struct {
	EntityKey string
	EntityID  string
	Version   int64
	Hash      string
	TS        int64
	// Edited is set when the record's content is not what its hash
	// covers.
	Edited bool
}

// nameLeaves names, where it can, the version of each leaf at the given
// indices, which name nothing and whose hash no stored record has: by the
// index entry that locates it (read by walking the whole index, which only
// a damaged log needs), whose id is a digest of the entity key,
// matched against the entity keys the store still knows of (known). A
// leaf it cannot name keeps its index alone.
func (l *Log) nameLeaves(ctx context.Context, leaves map[int64]bool, known map[string]bool) (map[int64]Problem, error) {
	out := map[int64]Problem{}
	if len(leaves) == 0 {
		return out, nil
	}
	byDigest := map[string]string{}
	for key := range known {
		byDigest[strings.TrimSuffix(indexID(key, 0), "-v0")] = key
	}
	err := l.index().each(ctx, func(id string, index int64) {
		if !leaves[index] {
			return
		}
		digest, v, ok := strings.Cut(id, "-v")
		version, err := strconv.ParseInt(v, 10, 64)
		if key, found := byDigest[digest]; ok && err == nil && found {
			out[index] = Problem{EntityID: key[strings.LastIndex(key, "/")+1:], Version: version}
		}
	})
	return out, err
}

// storedHashes reads every audit record's identity, hash and _ts, keyed by
// entity key and version, and checks its content against its hash; and
// the entity keys of the todos the audit container knows of, by their
// records and their activity entries.
func storedHashes(ctx context.Context, audit store.Container) (map[string]storedRef, map[string]bool, error) {
	out, known := map[string]storedRef{}, map[string]bool{}
	q := store.Query{PageSize: store.MaxPageSize}
	for {
		page, err := audit.Query(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		for _, it := range page.Items {
			r, err := skimRecord(it.Body)
			if err == nil && r.EntityType == todo.EntityTypeTodo && r.Owner != "" && r.EntityID != "" {
				known[todo.EntityKey(r.Owner, r.EntityID)] = true
			}
			if err != nil || r.EntityType == "" || r.Hash == "" || r.Owner != "" {
				continue
			}
			known[r.EntityKey] = true
			_, _, err = hashchain.DecodeVerifiedRecord(it.Body)
			out[versionKey(r.EntityKey, r.Version)] = storedRef{EntityKey: r.EntityKey, EntityID: r.EntityID, Version: r.Version, Hash: r.Hash,
				TS: r.TS, Edited: err != nil}
		}
		if page.Continuation == "" {
			return out, known, nil
		}
		q.Continuation = page.Continuation
	}
}
