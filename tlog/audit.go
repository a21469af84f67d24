package tlog

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
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
	stored, err := storedHashes(ctx, l.Audit)
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
	logged := map[string]bool{}
	hr := newTileReader(ctx, l.Leases).hashes(c.Tree())
	for n := int64(0); n*tileWidth < c.Size; n++ {
		leaves, err := l.bundle(ctx, hr, bundleTile(c.Size, n))
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Kind: LogDamaged, Version: n * tileWidth})
			continue
		}
		located, err := l.locateLeaves(ctx, leaves)
		if err != nil {
			return rep, err
		}
		for i, b := range leaves {
			rep.Entries++
			leaf, err := ParseLeaf(b)
			if err != nil {
				rep.Problems = append(rep.Problems, Problem{Kind: LogDamaged, Version: rep.Entries - 1})
				continue
			}
			if located[i] != n*tileWidth+int64(i) {
				rep.Problems = append(rep.Problems, Problem{Kind: IndexDiffers, EntityID: leaf.ID, Version: leaf.Version})
			}
			key := leaf.EntityKey() + "\x00" + strconv.FormatInt(leaf.Version, 10)
			if logged[key] {
				rep.Problems = append(rep.Problems, Problem{Kind: DuplicateInLog, EntityID: leaf.ID, Version: leaf.Version})
				continue
			}
			logged[key] = true
			switch s, ok := stored[key]; {
			case !ok:
				rep.Problems = append(rep.Problems, Problem{Kind: MissingFromStore, EntityID: leaf.ID, Version: leaf.Version})
			case s.Hash != leaf.Hash:
				rep.Problems = append(rep.Problems, Problem{Kind: HashDiffers, EntityID: leaf.ID, Version: leaf.Version})
			case s.Edited:
				rep.Problems = append(rep.Problems, Problem{Kind: ContentDiffers, EntityID: leaf.ID, Version: leaf.Version})
			}
		}
	}
	cutoff := now.Add(-grace).Unix()
	var missing []Problem
	for key, s := range stored {
		if logged[key] {
			continue
		}
		if s.TS >= cutoff {
			rep.Pending++
			continue
		}
		missing = append(missing, Problem{Kind: MissingFromLog, EntityID: s.EntityID, Version: s.Version})
	}
	slices.SortFunc(missing, func(a, b Problem) int {
		if a.EntityID != b.EntityID {
			return strings.Compare(a.EntityID, b.EntityID)
		}
		return int(a.Version - b.Version)
	})
	rep.Problems = append(rep.Problems, missing...)
	rep.Verified = len(rep.Problems) == 0
	return rep, nil
}

// locateLeaves reads the index documents of a bundle's leaves: the index
// each gives, -1 for a leaf that does not parse or has none.
func (l *Log) locateLeaves(ctx context.Context, leaves [][]byte) ([]int64, error) {
	refs := make([]VersionRef, len(leaves))
	for i, b := range leaves {
		if leaf, err := ParseLeaf(b); err == nil {
			refs[i] = VersionRef{EntityKey: leaf.EntityKey(), Version: leaf.Version}
		}
	}
	return l.Locate(ctx, refs)
}

// bundle reads an entry bundle and checks each entry against the tree.
func (l *Log) bundle(ctx context.Context, hr tlog.HashReader, t tlog.Tile) ([][]byte, error) {
	leaves, err := newTileReader(ctx, l.Leases).entries(t)
	if err != nil {
		return nil, err
	}
	idx := make([]int64, len(leaves))
	for i := range leaves {
		idx[i] = tlog.StoredHashIndex(0, t.N*tileWidth+int64(i))
	}
	hs, err := hr.ReadHashes(idx)
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
	EntityID string
	Version  int64
	Hash     string
	TS       int64
	// Edited is set when the record's content is not what its hash
	// covers.
	Edited bool
}

// storedHashes reads every audit record's identity, hash and _ts, keyed by
// entity key and version, and checks its content against its hash.
func storedHashes(ctx context.Context, audit store.Container) (map[string]storedRef, error) {
	out := map[string]storedRef{}
	q := store.Query{PageSize: store.MaxPageSize}
	for {
		page, err := audit.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			r, err := skimRecord(it.Body)
			if err != nil || r.EntityType == "" || r.Hash == "" || r.Owner != "" {
				continue
			}
			_, _, err = todo.DecodeVerifiedRecord(it.Body)
			out[r.EntityKey+"\x00"+strconv.FormatInt(r.Version, 10)] = storedRef{EntityID: r.EntityID, Version: r.Version, Hash: r.Hash, TS: r.TS,
				Edited: err != nil}
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}
