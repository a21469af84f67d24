package tlog

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Log serves what the log publishes: the latest checkpoint, tiles, and
// inclusion and consistency proofs under the latest checkpoint.
type Log struct {
	Leases store.Container
	Keys   *Keys
	// Audit and Anchors are what Audit walks the log against.
	Audit   store.Container
	Anchors Anchors

	// opened is the stored checkpoint verified last: a monitor polls the
	// checkpoint far more often than it changes, and the same note's
	// signature is not checked again.
	opened atomic.Pointer[openedCheckpoint]
}

type openedCheckpoint struct {
	note string
	c    Checkpoint
}

// Checkpoint returns the latest signed checkpoint, as published, and its
// body. NotFound before the first.
func (l *Log) Checkpoint(ctx context.Context) ([]byte, Checkpoint, error) {
	var d checkpointDoc
	_, err := read(ctx, l.Leases, checkpointID, &d)
	if todo.IsKind(err, todo.NotFound) {
		return nil, Checkpoint{}, todo.Errorf(todo.NotFound, "the log has no checkpoint yet")
	}
	if err != nil {
		return nil, Checkpoint{}, err
	}
	if o := l.opened.Load(); o != nil && o.note == d.Note {
		return []byte(d.Note), o.c, nil
	}
	c, err := OpenCheckpoint([]byte(d.Note), l.Keys.Verifier)
	if err != nil {
		return nil, c, todo.Wrap(todo.Internal, err, "the stored checkpoint does not verify")
	}
	l.opened.Store(&openedCheckpoint{note: d.Note, c: c})
	return []byte(d.Note), c, nil
}

// Tile returns the tile or entry bundle at a C2SP tlog-tiles path.
func (l *Log) Tile(ctx context.Context, path string) ([]byte, tlog.Tile, error) {
	t, err := ParseTilePath(path)
	if err != nil {
		return nil, t, todo.Errorf(todo.Invalid, "%s", err.Error())
	}
	b, err := newTileReader(ctx, l.Leases).read(t)
	if todo.IsKind(err, todo.NotFound) {
		return nil, t, todo.Errorf(todo.NotFound, "the log has no tile %s", path)
	}
	return b, t, err
}

// Inclusion is a version's leaf and its inclusion proof in the tree of a
// checkpoint.
type Inclusion struct {
	Checkpoint []byte
	Index      int64
	Leaf       []byte
	Proof      tlog.RecordProof
}

// Prove returns the inclusion proof of one version of an entity under the
// latest checkpoint. NotFound when that version is not in it (yet).
func (l *Log) Prove(ctx context.Context, entityKey string, version int64) (Inclusion, error) {
	var in Inclusion
	msg, c, err := l.Checkpoint(ctx)
	if err != nil {
		return in, err
	}
	d, err := l.locate(ctx, entityKey, version, c.Size)
	if err != nil {
		return in, err
	}
	hr := newTileReader(ctx, l.Leases).hashes(c.Tree())
	if err := l.leafAt(hr, d); err != nil {
		return in, err
	}
	proof, err := tlog.ProveRecord(c.Size, d.Index, hr)
	if err != nil {
		return in, todo.Wrap(todo.Internal, err, "the log's tiles give no proof")
	}
	return Inclusion{Checkpoint: msg, Index: d.Index, Leaf: d.Leaf, Proof: proof}, nil
}

// locate reads where a version's leaf is: NotFound unless it is in the tree
// of the given size.
func (l *Log) locate(ctx context.Context, entityKey string, version int64, size int64) (indexDoc, error) {
	d, err := l.readIndex(ctx, entityKey, version)
	if todo.IsKind(err, todo.NotFound) || (err == nil && d.Index >= size) {
		return d, todo.Errorf(todo.NotFound, "version %d is not in the log's latest checkpoint (yet)", version)
	}
	return d, err
}

// readIndex reads a version's index document, NotFound before the version
// is appended.
func (l *Log) readIndex(ctx context.Context, entityKey string, version int64) (indexDoc, error) {
	var d indexDoc
	_, err := read(ctx, l.Leases, indexID(entityKey, version), &d)
	if err == nil && (d.EntityKey != entityKey || d.Version != version) {
		err = todo.Errorf(todo.Internal, "the log's index of version %d is another version's", version)
	}
	return d, err
}

// leafAt checks that the index document's leaf is the one the tree holds
// at its index.
func (l *Log) leafAt(hr tlog.HashReader, d indexDoc) error {
	hs, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, d.Index)})
	if err != nil {
		return todo.Wrap(todo.Internal, err, "the log's tiles do not match its checkpoint")
	}
	if hs[0] != tlog.RecordHash(d.Leaf) {
		return todo.Errorf(todo.Internal, "the log's index of leaf %d does not hold the leaf the tree does", d.Index)
	}
	return nil
}

// Consistency returns the consistency proof between the trees of sizes
// from and to, both at most the latest checkpoint's.
func (l *Log) Consistency(ctx context.Context, from, to int64) (tlog.TreeProof, error) {
	_, c, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	if from < 0 || from > to || to > c.Size {
		return nil, todo.Errorf(todo.Invalid, "from and to must satisfy 0 <= from <= to <= %d, the latest checkpoint's size", c.Size)
	}
	if from == 0 || from == to {
		return tlog.TreeProof{}, nil // the empty tree, and a tree itself, need no proof
	}
	p, err := tlog.ProveTree(to, from, newTileReader(ctx, l.Leases).hashes(c.Tree()))
	if err != nil {
		return nil, todo.Wrap(todo.Internal, err, "the log's tiles give no proof")
	}
	return p, nil
}

// VersionHash is one version of an entity and its chain hash.
type VersionHash struct {
	Version int64
	Hash    string
}

// Logged says how many of an entity's versions are in the latest
// checkpoint with the hash given, and how many are not in it yet. A version
// that is logged with another hash, or whose leaf is not the tree's, is an
// error naming it.
type Logged struct {
	Logged, Pending int
	// Differs is the first version logged with another hash, 0 if none.
	Differs int64
}

// Check compares an entity's versions with the log.
func (l *Log) Check(ctx context.Context, entityKey string, versions []VersionHash) (Logged, error) {
	var out Logged
	_, c, err := l.Checkpoint(ctx)
	if todo.IsKind(err, todo.NotFound) {
		out.Pending = len(versions)
		return out, nil
	}
	if err != nil {
		return out, err
	}
	hr := newTileReader(ctx, l.Leases).hashes(c.Tree())
	for _, v := range versions {
		d, err := l.locate(ctx, entityKey, v.Version, c.Size)
		if todo.IsKind(err, todo.NotFound) {
			out.Pending++
			continue
		}
		if err != nil {
			return out, err
		}
		if err := l.leafAt(hr, d); err != nil {
			return out, err
		}
		leaf, err := ParseLeaf(d.Leaf)
		if err != nil {
			return out, todo.Wrap(todo.Internal, err, fmt.Sprintf("the log's leaf %d does not parse", d.Index))
		}
		if leaf.Hash != v.Hash {
			if out.Differs == 0 {
				out.Differs = v.Version
			}
			continue
		}
		out.Logged++
	}
	return out, nil
}
