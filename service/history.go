package service

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// HistoryPage is one page of a todo's audit history, oldest first.
type HistoryPage struct {
	Items        []HistoryItem
	Continuation string
	// Complete is false when a version is missing: a gap between versions,
	// or (on the last page) history that ends before the todo's latest
	// version. Versions the retention purge removed are not missing.
	Complete bool
}

// History returns the audit records of the caller's todo id, oldest first:
// one single-partition query in the audit container, whose partition key
// includes the caller, so no one reads another user's history.
func (s *Service) History(ctx context.Context, id string, pageSize int, continuation string) (HistoryPage, error) {
	user, err := caller(ctx)
	if err != nil {
		return HistoryPage{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return HistoryPage{}, err
	}
	if pageSize == 0 {
		pageSize = DefaultPageSize
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return HistoryPage{}, todo.Errorf(todo.Invalid, "pageSize must be between 1 and %d", MaxPageSize)
	}
	// The history token carries the last version of the previous page, so
	// a gap at a page boundary is seen too.
	var prev int64
	var inner string
	if continuation != "" {
		head, rest, ok := strings.Cut(continuation, ".")
		n, err := strconv.ParseInt(head, 10, 64)
		if !ok || err != nil || n < 0 || rest == "" {
			return HistoryPage{}, todo.Errorf(todo.Invalid, "continuation token is malformed or belongs to another query")
		}
		prev, inner = n, rest
	} else if m, err := s.purgeMarker(ctx, user, id); err != nil {
		return HistoryPage{}, err
	} else if m.PurgedBefore > 1 {
		prev = m.PurgedBefore - 1 // purged, not missing
	}
	p, err := s.audit.Query(ctx, repo.Spec{
		Partitions:   []store.PartitionKey{{todo.EntityKey(user, id)}},
		OrderBy:      []store.Order{{Field: "version"}},
		PageSize:     pageSize,
		Continuation: inner,
	})
	page := HistoryPage{Complete: true}
	if err != nil {
		return page, err
	}
	for _, d := range p.Items {
		page.Items = append(page.Items, HistoryItem{AuditRecord: d.Value})
		if d.Value.Version != prev+1 {
			page.Complete = false
		}
		prev = d.Value.Version
	}
	if err := s.addChanges(ctx, user, id, page.Items); err != nil {
		return page, err
	}
	if p.Continuation != "" {
		page.Continuation = strconv.FormatInt(prev, 10) + "." + p.Continuation
		return page, nil
	}
	// Last page: history must reach the latest version the todo has had.
	var last int64
	cur, err := s.load(ctx, id)
	switch {
	case err == nil:
		last = cur.Value.Version
	case todo.IsKind(err, todo.NotFound):
		var seen lastSeen
		seen, err = s.lastVersion(ctx, id, pk)
		if todo.IsKind(err, todo.Conflict) {
			err = nil // the id's versions are another user's
		}
		if err != nil {
			return page, err
		}
		last = seen.Version
	default:
		return page, err
	}
	if last == 0 && len(page.Items) == 0 && continuation == "" {
		return page, notFound(id)
	}
	if prev < last {
		page.Complete = false
	}
	return page, nil
}

// version finds the content of version n of todo id: from its audit record,
// or from its retained version document when the audit lags behind.
func (s *Service) version(ctx context.Context, id string, pk store.PartitionKey, n int64) (todo.Todo, error) {
	var t todo.Todo
	rec, err := s.audit.GetIn(ctx, store.PartitionKey{todo.EntityKey(userFrom(ctx), id)}, todo.AuditID(id, n))
	if err == nil {
		if err := json.Unmarshal(rec.Value.Entity, &t); err != nil {
			return t, todo.Wrap(todo.Internal, err, "audit record does not decode")
		}
		return t, nil
	}
	if !todo.IsKind(err, todo.NotFound) {
		return t, err
	}
	v, err := s.versions.GetIn(ctx, pk, todo.VersionID(id, n))
	if todo.IsKind(err, todo.NotFound) || (err == nil && v.Value.UserID != userFrom(ctx)) {
		return t, todo.Errorf(todo.NotFound, "version %d of todo %q not found", n, id)
	}
	return v.Value.Entity, err
}

// Rollback writes the content of version n as a new version of the caller's
// todo, re-creating it if it was deleted.
func (s *Service) Rollback(ctx context.Context, id string, n int64, ifMatch string) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Result{}, err
	}
	if n < 1 {
		return Result{}, todo.Errorf(todo.Invalid, "version must be 1 or more")
	}
	old, err := s.version(ctx, id, pk, n)
	if err != nil {
		return Result{}, err
	}
	return s.readModifyWrite(ctx, id, ifMatch,
		func() (Result, error) { return s.restore(ctx, user, id, pk, old) },
		func(d repo.Doc[todo.Todo]) (Result, error) {
			t := d.Value
			t.SetFields(old.Fields())
			s.advance(&t, todo.OpRollback, user)
			etag, err := s.write(ctx, &t, store.BatchReplace, d.ETag)
			return Result{Todo: t, ETag: etag}, err
		})
}

// restore re-creates a deleted todo from an old version's content. An id
// whose todo was moved away stays empty: its todo lives on elsewhere.
func (s *Service) restore(ctx context.Context, user, id string, pk store.PartitionKey, old todo.Todo) (Result, error) {
	last, err := s.lastVersion(ctx, id, pk)
	if err != nil {
		return Result{}, err
	}
	if last.MovedTo != "" {
		return Result{}, moved(id, last.MovedTo)
	}
	t := old
	t.MovingTo, t.Version, t.Hash = "", last.Version, last.Hash
	s.advance(&t, todo.OpRollback, user)
	etag, err := s.write(ctx, &t, store.BatchCreate, "")
	return Result{Todo: t, ETag: etag, Created: true}, err
}
