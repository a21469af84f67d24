package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/hashchain"
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
// includes the caller, so no one reads another user's history. Each record
// is decoded strictly and checked against its own hash, and served as the
// re-encoding of what was checked; one that fails is refused with
// Conflict (Verify checks the links between records too).
func (s *Service) History(ctx context.Context, id string, pageSize int, continuation string) (HistoryPage, error) {
	return s.history(ctx, id, pageSize, continuation, historyRead{changes: true})
}

// HistoryAsStored is History with each record served as it is stored: one
// stored with its seed shows it in place of its commitments, which the
// seed and the entity give (as NDJSON exports show records), and is
// checked against its hash without deriving them. A record with an
// erased field shows its commitments, as History does. Its continuation
// tokens are History's.
func (s *Service) HistoryAsStored(ctx context.Context, id string, pageSize int, continuation string) (HistoryPage, error) {
	return s.history(ctx, id, pageSize, continuation, historyRead{asStored: true, changes: true})
}

// historyRead is how history reads a page: asStored keeps each record's
// seed (hashchain.DecodeSealedRecord), changes computes what each item
// changed, which an export does not show.
type historyRead struct{ asStored, changes bool }

// history is History, read as how says.
func (s *Service) history(ctx context.Context, id string, pageSize int, continuation string, how historyRead) (HistoryPage, error) {
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
	prev, inner, err := parseHistoryToken(continuation)
	if err != nil {
		return HistoryPage{}, err
	}
	p, err := s.records.Query(ctx, repo.Spec{
		Partitions:   []store.PartitionKey{{todo.EntityKey(user, id)}},
		OrderBy:      []store.Order{{Field: "version"}},
		PageSize:     pageSize,
		Continuation: inner,
	})
	page := HistoryPage{Complete: true}
	if err != nil {
		return page, err
	}
	page.Items = make([]HistoryItem, 0, len(p.Items))
	decode := hashchain.DecodeServedRecord
	if how.asStored {
		decode = func(data []byte) (todo.AuditRecord, hashchain.Audited, hashchain.Derived, error) {
			r, a, err := hashchain.DecodeSealedRecord(data)
			return r, a, hashchain.Derived{}, err
		}
	}
	entities, prev, err := s.historyItems(ctx, user, id, &page, p.Items, decode, continuation == "", prev)
	if err != nil {
		return HistoryPage{}, err
	}
	if how.changes {
		if err := s.addChanges(ctx, user, id, page.Items, entities); err != nil {
			return page, err
		}
	}
	if p.Continuation != "" {
		page.Continuation = strconv.FormatInt(prev, 10) + "." + p.Continuation
		return page, nil
	}
	return page, s.historyEnd(ctx, id, pk, &page, continuation == "", prev)
}

// parseHistoryToken reads a history continuation token: the last version
// of the previous page, so that a gap at a page boundary is seen too, and
// the store's token. The empty token is the first page's.
func parseHistoryToken(continuation string) (int64, string, error) {
	if continuation == "" {
		return 0, "", nil
	}
	head, rest, ok := strings.Cut(continuation, ".")
	n, err := strconv.ParseInt(head, 10, 64)
	if !ok || err != nil || n < 0 || rest == "" {
		return 0, "", todo.Errorf(todo.Invalid, "continuation token is malformed or belongs to another query")
	}
	return n, rest, nil
}

// historyItems adds the records of one page to it, decoded and verified
// with decode, after version prev,
// marking it incomplete at a gap, and returns their entities and the last
// version. A record that decodes but does not verify is served as it is
// stored, marked with why: the evidence of tampering, for whoever audits
// it. One that does not decode strictly is never served: what another
// reader makes of it may differ.
func (s *Service) historyItems(ctx context.Context, user, id string, page *HistoryPage, items []repo.Doc[repo.Stored],
	decode func([]byte) (todo.AuditRecord, hashchain.Audited, hashchain.Derived, error), first bool, prev int64) ([]todo.Todo, int64, error) {
	entities := make([]todo.Todo, 0, len(items))
	for _, d := range items {
		rec, a, derived, err := decode(d.Value)
		var marked string
		var unverified *hashchain.UnverifiedError
		switch {
		case errors.As(err, &unverified):
			marked = fmt.Sprintf("version %d does not match its hash (%v); see GET %s/history/verify", rec.Version, err, todoPath(id))
		case err != nil:
			return nil, prev, todo.Errorf(todo.Conflict, "the audit record after version %d of todo %q is refused (%v); see GET %s/history/verify",
				prev, id, err, todoPath(id))
		}
		if first && len(page.Items) == 0 && rec.Version > 1 {
			// A history that starts after version 1 may have been purged
			// under the retention period: purged, not missing.
			m, err := governance.ReadPurgeMarker(ctx, s.auditC, user, id)
			if err != nil {
				return nil, prev, err
			}
			if m.PurgedBefore == rec.Version {
				prev = m.PurgedBefore - 1
			}
		}
		page.Items = append(page.Items, HistoryItem{AuditRecord: rec, Unverified: marked, derived: derived})
		entities = append(entities, a.Entity)
		if rec.Version != prev+1 {
			page.Complete = false
		}
		prev = rec.Version
	}
	return entities, prev, nil
}

// historyEnd checks the last page of a history, which ends at version
// prev: the history must reach the latest version the todo has had.
func (s *Service) historyEnd(ctx context.Context, id string, pk store.PartitionKey, page *HistoryPage, first bool, prev int64) error {
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
			return err
		}
		last = seen.Version
	default:
		return err
	}
	if last == 0 && len(page.Items) == 0 && first {
		return notFound(id)
	}
	if prev < last {
		page.Complete = false
	}
	return nil
}

// Rollback writes the content of version n as a new version of the caller's
// todo, re-creating it if it was deleted. Version n must verify: the whole
// chain is walked first (see walk), audit records and the retained version
// documents the audit has not caught up with, and a version at or after
// the first that does not verify is refused with Conflict.
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
	var found *verified
	v, _, head, err := s.walk(ctx, user, id, pk, true, n, nil, func(x *verified) {
		if x.Record.Version == n {
			found = x
		}
	})
	switch {
	case err != nil:
		return Result{}, err
	case !v.Verified && n >= v.BrokenAt:
		return Result{}, unverified(id, n, v)
	case found == nil:
		return Result{}, todo.Errorf(todo.NotFound, "version %d of todo %q not found", n, id)
	case found.Audited.Erased():
		return Result{}, todo.Errorf(todo.Conflict, "version %d of todo %q has erased fields: it cannot be restored", n, id)
	}
	old := found.Audited.Entity
	if head != nil && head.Value.MovingTo != "" {
		head = nil // its move is finished first, by a fresh read
	}
	return s.readModifyWriteFrom(ctx, id, ifMatch, head,
		func() (Result, error) { return s.restore(ctx, user, id, pk, old) },
		func(d repo.Doc[todo.Todo]) (Result, error) {
			t := d.Value
			t.Fields = old.Fields
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

// todoPath is the API path of todo id, for messages that point at it.
func todoPath(id string) string { return "/api/todos/" + url.PathEscape(id) }
