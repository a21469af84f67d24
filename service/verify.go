package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// Verification is the outcome of checking one todo's hash chain.
type Verification struct {
	Verified bool
	// Versions is how many versions were checked.
	Versions int
	// BrokenAt is the first version whose stored content or link does not
	// match, when not verified; Reason says how.
	BrokenAt int64
	Reason   string
	// PurgedBefore, when not zero, is the first version the retention
	// purge kept: the versions before it were purged, not lost, and the
	// chain is checked from it on, linking to the last one purged.
	PurgedBefore int64
}

// Verify recomputes the hash chain of the caller's todo id from its audit
// records, oldest first: every version from 1 on must be there, link to
// the hash of the one before (the first version after a move links to the
// old id's version that moved it), and hash to what it stores; the newest
// must be the version the todo (or its retained outbox) says is the latest.
func (s *Service) Verify(ctx context.Context, id string) (Verification, error) {
	user, err := caller(ctx)
	if err != nil {
		return Verification{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Verification{}, err
	}
	var out Verification
	broken := func(k int64, format string, args ...any) (Verification, error) {
		out.BrokenAt, out.Reason = k, fmt.Sprintf(format, args...)
		return out, nil
	}
	spec := repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(user, id)}},
		OrderBy:    []store.Order{{Field: "version"}},
		PageSize:   store.MaxPageSize,
	}
	prev, next := "", int64(1)
	if m, err := s.purgeMarker(ctx, user, id); err != nil {
		return out, err
	} else if m.PurgedBefore > 1 {
		prev, next, out.PurgedBefore = m.LastHash, m.PurgedBefore, m.PurgedBefore
		spec.Filters = []store.Filter{{Field: "version", Op: store.Ge, Value: next}}
	}
	for {
		p, err := s.records.Query(ctx, spec)
		if err != nil {
			return out, err
		}
		for _, d := range p.Items {
			var stored storedRecord
			dec := json.NewDecoder(bytes.NewReader(d.Value))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&stored); err != nil {
				_ = json.Unmarshal(d.Value, &stored)
				return broken(recordVersion(id, stored.ID, next), "the audit record %q does not decode as one: %v", stored.ID, err)
			}
			r := stored.AuditRecord
			if r.ID != todo.AuditID(id, r.Version) {
				return broken(recordVersion(id, r.ID, next), "the audit record %q says it is version %d", r.ID, r.Version)
			}
			if r.Version != next {
				return broken(next, "version %d is missing", next)
			}
			a, err := r.Audited()
			if err != nil {
				return broken(next, "version %d: %v", next, err)
			}
			if next == 1 && r.Operation == todo.OpMove && a.Entity.MovedFrom != "" {
				ok, err := s.linksToMove(ctx, user, a.Entity.MovedFrom, id, r.PrevHash)
				if err != nil {
					return out, err
				}
				if !ok {
					return broken(next, "version 1 does not link to the version of %q that moved it here", a.Entity.MovedFrom)
				}
			} else if r.PrevHash != prev {
				return broken(next, "the prevHash of version %d is not the hash of version %d", next, next-1)
			}
			if a.Hash(r.PrevHash) != r.Hash {
				return broken(next, "the content of version %d does not match its hash", next)
			}
			prev = r.Hash
			next++
			out.Versions++
		}
		if p.Continuation == "" {
			break
		}
		spec.Continuation = p.Continuation
	}
	head, err := s.head(ctx, user, id, pk)
	switch {
	case err != nil:
		return out, err
	case head.Version == 0 && out.Versions == 0:
		return out, notFound(id)
	case head.Version >= next:
		return broken(next, "version %d is missing (not audited yet, or removed)", next)
	case head.Version == next-1 && head.Hash != prev:
		return broken(head.Version, "the todo's latest hash is not the hash of version %d", head.Version)
	}
	out.Verified = true
	return out, nil
}

// storedRecord is an audit record as the store returns it: its own
// properties and the store's system properties, nothing else.
type storedRecord struct {
	todo.AuditRecord
	RID         string `json:"_rid"`
	Self        string `json:"_self"`
	ETag        string `json:"_etag"`
	Attachments string `json:"_attachments"`
	TS          int64  `json:"_ts"`
	LSN         int64  `json:"_lsn"`
}

// recordVersion is the version an audit record's id names, or def when the
// id is not one of this todo's.
func recordVersion(id, recordID string, def int64) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(recordID, id+":v"), 10, 64)
	if err != nil || !strings.HasPrefix(recordID, id+":v") {
		return def
	}
	return n
}

// head is the latest version id has had and its hash: the todo's own, or
// for a todo that is gone, its newest version.
func (s *Service) head(ctx context.Context, user, id string, pk store.PartitionKey) (lastSeen, error) {
	d, err := s.todos.GetIn(ctx, pk, id)
	if err == nil && d.Value.Type == todo.TypeTodo && d.Value.UserID == user {
		return lastSeen{Version: d.Value.Version, Hash: d.Value.Hash}, nil
	}
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		return lastSeen{}, err
	}
	last, err := s.lastVersion(ctx, id, pk)
	if todo.IsKind(err, todo.Conflict) {
		return lastSeen{}, nil // the id's versions are another user's
	}
	return last, err
}

// linksToMove reports whether prevHash is the hash of the version of the
// caller's todo from that moved it to id: one query for that hash in the
// old id's history.
func (s *Service) linksToMove(ctx context.Context, user, from, id, prevHash string) (bool, error) {
	if prevHash == "" || todo.ValidateID(from) != nil {
		return false, nil
	}
	p, err := s.audit.Query(ctx, repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(user, from)}},
		Filters:    []store.Filter{{Field: "hash", Op: store.Eq, Value: prevHash}},
		PageSize:   1,
	})
	if err != nil || len(p.Items) == 0 {
		return false, err
	}
	r := p.Items[0].Value
	a, err := r.Audited()
	return err == nil && a.Entity.MovingTo == id && a.Hash(r.PrevHash) == r.Hash, nil
}

// purgeMarker is what the retention purge left of the caller's todo id's
// oldest versions: the zero marker when nothing was purged.
func (s *Service) purgeMarker(ctx context.Context, user, id string) (todo.PurgeMarker, error) {
	var m todo.PurgeMarker
	it, err := s.auditC.Read(ctx, store.PartitionKey{todo.PurgeMarkerKey(user, id)}, todo.PurgeMarkerID)
	if todo.IsKind(err, todo.NotFound) {
		return m, nil
	}
	if err == nil && json.Unmarshal(it.Body, &m) != nil {
		return m, todo.Errorf(todo.Internal, "the purge marker of %q does not decode", id)
	}
	return m, err
}
