package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/hashchain"
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
	// Erased counts the versions checked that have erased fields, whose
	// digests alone were checked; FirstEncoding the versions of the first
	// chain encoding, which commit to no field separately, so that an
	// erasure leaves their content as it is.
	Erased, FirstEncoding int
	// Next is set when the verification stopped at its deadline before the
	// end: the Versions from the step's start up to Next.From are sound,
	// and Verify from Next checks the rest.
	Next *VerifyStep
	// Checked are the versions checked, oldest first, with what their
	// leaves in the transparency log are made of: what a comparison with
	// the log needs, without reading the history again.
	Checked []CheckedVersion
}

// CheckedVersion is one version a verification checked: its chain links
// and its time (the record's dateCreatedUtc).
type CheckedVersion struct {
	Version        int64
	PrevHash, Hash string
	At             time.Time
}

// VerifyStep is where a verification starts: at version From (1 when
// zero), whose predecessor's hash is PrevHash. A history too long to check
// within one request's deadline is checked in steps, each from the Next of
// the one before.
type VerifyStep struct {
	From     int64
	PrevHash string
}

// maxHashBytes bounds a prevHash given to Verify: longer than any hash.
const maxHashBytes = 128

// Verify recomputes the hash chain of the caller's todo id from its audit
// records, oldest first (see walk), from version from.From on, and
// compares its newest version with the todo itself. It watches its
// deadline record by record: when the history is too long to check in
// time, it answers with the versions checked so far and the step to
// continue from, rather than an error.
func (s *Service) Verify(ctx context.Context, id string, from VerifyStep) (Verification, error) {
	user, err := caller(ctx)
	if err != nil {
		return Verification{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Verification{}, err
	}
	if from.From == 0 {
		from.From = 1
	}
	switch {
	case from.From < 1:
		return Verification{}, todo.Errorf(todo.Invalid, "from must be a version, 1 or more")
	case from.From == 1 && from.PrevHash != "":
		return Verification{}, todo.Errorf(todo.Invalid, "version 1 has no previous hash: give prevHash only with from above 1")
	case from.From > 1 && (from.PrevHash == "" || len(from.PrevHash) > maxHashBytes):
		return Verification{}, todo.Errorf(todo.Invalid, "prevHash must be the hash of version %d, as the previous step's next gave it", from.From-1)
	}
	v, _, _, err := s.walk(ctx, user, id, pk, false, 0, &from, nil)
	return v, err
}

// verified is one version of a todo as the chain verified it: its record,
// whose entity is the re-encoding of the snapshot checked, and that
// snapshot.
type verified struct {
	Record  todo.AuditRecord
	Audited hashchain.Audited
}

// walk verifies the hash chain of the caller's todo id, oldest first, and
// hands each version that verifies to visit (when not nil) before the
// next is read. Every version from 1 on must be there, decode as strictly
// as a request body, link to the hash of the one before (the first
// version after a move links to the old id's version that moved it) and
// hash to what it stores. The versions are the audit records, and with
// outbox the retained version documents after the newest record too (the
// audit may lag behind them): those the todo is ahead of the audit by and
// up to version reach, or all there are when the todo is gone. Then the newest version must be the todo:
// the same version, hash and content, whatever the distance between them;
// for a todo that is gone, a delete or a move. walk stops at the first
// version that does not verify; it returns the newest one that did.
//
// walk checks its deadline record by record. Without step it walks the
// whole chain and, past its deadline, fails with Unavailable. With step
// it starts at step.From, linking to step.PrevHash, and stops checking at
// three quarters of the time its deadline leaves, so that the answer still
// comes in time: with the versions checked so far and out.Next.
func (s *Service) walk(ctx context.Context, user, id string, pk store.PartitionKey, outbox bool, reach int64,
	step *VerifyStep, visit func(*verified)) (Verification, *verified, *repo.Doc[todo.Todo], error) {
	var out Verification
	var newest *verified
	var head *repo.Doc[todo.Todo] // the caller's todo, as read, if it is there
	broken := func(k int64, format string, args ...any) (Verification, *verified, *repo.Doc[todo.Todo], error) {
		out.BrokenAt, out.Reason = k, fmt.Sprintf(format, args...)
		return out, newest, head, nil
	}
	spec := repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(user, id)}},
		OrderBy:    []store.Order{{Field: "version"}},
		PageSize:   store.MaxPageSize,
	}
	prev, next := "", int64(1)
	if step != nil && step.From > 1 {
		prev, next = step.PrevHash, step.From
		// The walk starts after version From - 1 in the range index, so
		// that a step costs what it checks, not the versions before it.
		spec.After = &store.Seek{Order: spec.OrderBy[0], Value: json.RawMessage(strconv.FormatInt(step.From-1, 10)), ID: todo.AuditID(id, step.From-1)}
	}
	check, cancel := checkDeadline(ctx, step != nil)
	defer cancel()
	start := next
	// late answers a walk that ran out of time. A step that checked
	// versions ends with them: before the version next it was about to
	// read (more), or else before the newest it checked, which the next
	// step checks again with the todo (its next may not exist).
	late := func(more bool, err error) (Verification, *verified, *repo.Doc[todo.Todo], error) {
		switch {
		case step != nil && more && out.Versions > 0:
			out.Next = &VerifyStep{From: next, PrevHash: prev}
		case step != nil && out.Versions > 1:
			out.Versions--
			out.Checked = out.Checked[:out.Versions]
			out.Next = &VerifyStep{From: newest.Record.Version, PrevHash: newest.Record.PrevHash}
		case err != nil:
			return out, newest, head, err
		default:
			return out, newest, head, todo.Wrap(todo.Unavailable, check.Err(), "the history could not be checked within the deadline")
		}
		return out, newest, head, nil
	}
	accept := func(v *verified) (int64, string, error) {
		r, e := &v.Record, &v.Audited.Entity
		if out.Versions == 0 && r.Version > next {
			// Versions purged under the retention period are left out, not
			// missing; only a history that starts late can have any.
			m, err := governance.ReadPurgeMarker(ctx, s.auditC, user, id)
			if err != nil {
				return next, "", err
			}
			if m.PurgedBefore == r.Version {
				prev, next, out.PurgedBefore = m.LastHash, m.PurgedBefore, m.PurgedBefore
			}
		}
		switch {
		case r.ID != todo.AuditID(id, r.Version):
			return recordVersion(id, r.ID, next), fmt.Sprintf("the audit record %q says it is version %d", r.ID, r.Version), nil
		case r.Version != next:
			return next, fmt.Sprintf("version %d is missing", next), nil
		case r.EntityID != id || e.ID != id || e.UserID != user || e.Version != r.Version:
			return next, fmt.Sprintf("version %d is not a version of this todo", next), nil
		}
		if next == 1 && r.Operation == todo.OpMove && e.MovedFrom != "" {
			ok, err := s.linksToMove(ctx, user, e.MovedFrom, id, r.PrevHash)
			if err != nil || !ok {
				return next, fmt.Sprintf("version 1 does not link to the version of %q that moved it here", e.MovedFrom), err
			}
		} else if r.PrevHash != prev {
			return next, fmt.Sprintf("the prevHash of version %d is not the hash of version %d", next, next-1), nil
		}
		if err := v.Audited.Verify(r.PrevHash, r.Hash); err != nil {
			return next, fmt.Sprintf("version %d: %v", next, err), nil
		}
		if v.Audited.Erased() {
			out.Erased++
		}
		if v.Audited.Chain < hashchain.V2 {
			out.FirstEncoding++
		}
		if visit != nil {
			visit(v)
		}
		newest, prev = v, r.Hash
		next++
		out.Versions++
		out.Checked = append(out.Checked, CheckedVersion{Version: r.Version, PrevHash: r.PrevHash, Hash: r.Hash, At: r.DateCreatedUTC})
		return 0, "", nil
	}
	// The records, the todo, then the version documents after the newest
	// record. A version document found missing may have been retired
	// since the records were read, its record written in the same
	// transaction: the records from there on are read once more, for as
	// long as that finds more.
	readHead, rechecked := true, int64(0)
	for {
		for {
			p, err := s.records.Query(check, spec)
			if err != nil && check.Err() != nil {
				return late(false, err)
			}
			if err != nil {
				return out, newest, head, err
			}
			for _, d := range p.Items {
				// A step checks at least one version, so that steps progress.
				if check.Err() != nil && (step == nil || out.Versions > 0) {
					return late(true, nil)
				}
				r, a, err := hashchain.DecodeRecord(d.Value)
				if err != nil {
					return broken(recordVersion(id, r.ID, next), "the audit record %q: %v", r.ID, err)
				}
				if k, reason, err := accept(&verified{r, a}); err != nil || reason != "" {
					out.BrokenAt, out.Reason = k, reason
					return out, newest, head, err
				}
			}
			if p.Continuation == "" {
				break
			}
			spec.Continuation = p.Continuation
		}
		if readHead {
			readHead = false
			d, err := s.todos.GetIn(ctx, pk, id)
			if err != nil && !todo.IsKind(err, todo.NotFound) {
				if ctx.Err() != nil {
					return late(false, err)
				}
				return out, newest, head, err
			}
			if err == nil && d.Value.Type == todo.TypeTodo && d.Value.UserID == user {
				head = &d
			}
			if newest == nil && start > 1 && (head == nil || head.Value.Version < start) {
				return out, nil, head, todo.Errorf(todo.NotFound, "todo %q has no version %d", id, start)
			}
		}
		missed := false
		switch {
		case outbox:
			for head == nil || next <= max(head.Value.Version, reach) {
				v, ok, err := s.versionDoc(ctx, user, id, pk, next)
				if err != nil {
					return out, newest, head, err
				}
				if missed = !ok; missed {
					break
				}
				if k, reason, err := accept(v); err != nil || reason != "" {
					out.BrokenAt, out.Reason = k, reason
					return out, newest, head, err
				}
			}
		case head == nil:
			// The todo is gone: a retained version document newer than
			// the audit means its newest versions are not audited yet.
			_, ok, err := s.versionDoc(ctx, user, id, pk, next)
			if err != nil {
				return out, newest, head, err
			}
			if ok {
				return broken(next, "version %d is missing (not audited yet, or removed)", next)
			}
			missed = true
		}
		if !missed || rechecked == next {
			break
		}
		rechecked = next
		spec.Continuation, spec.After = "", nil
		if next > 1 {
			spec.After = &store.Seek{Order: spec.OrderBy[0], Value: json.RawMessage(strconv.FormatInt(next-1, 10)), ID: todo.AuditID(id, next-1)}
		}
	}
	last := next - 1
	if head != nil {
		t := &head.Value
		switch {
		case t.Version > last:
			return broken(next, "version %d is missing (not audited yet, or removed)", next)
		case t.Version < last:
			return broken(t.Version+1, "the todo is at version %d, but its history goes on to version %d", t.Version, last)
		case t.Hash != prev:
			return broken(last, "the todo's latest hash is not the hash of version %d", last)
		case newest.Record.Operation == todo.OpDelete:
			return broken(last, "version %d deletes the todo, but the todo is there", last)
		}
		if field := newest.Audited.Differs(t); field != "" {
			return broken(last, "the todo's %s is not that of its latest version %d", field, last)
		}
		out.Verified = true
		return out, newest, head, nil
	}
	switch {
	case newest == nil:
		return out, nil, nil, notFound(id)
	case newest.Record.Operation != todo.OpDelete && newest.Audited.Entity.MovingTo == "":
		return broken(last, "the todo is gone, but its latest version %d neither deletes nor moves it", last)
	}
	out.Verified = true
	return out, newest, head, nil
}

// checkDeadline is the context a walk checks under: ctx, or for a walk in
// steps, ctx ending at three quarters of the time its deadline leaves, so
// that the answer, and the check of the todo, still come within it.
func checkDeadline(ctx context.Context, steps bool) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && steps {
		return context.WithDeadline(ctx, time.Now().Add(time.Until(dl)*3/4))
	}
	return ctx, func() {}
}

// versionDoc reads the retained version document n of the caller's todo
// id, as the chain verifies it; ok is false when there is none (or it is
// another user's: users share partitions under the category scheme).
func (s *Service) versionDoc(ctx context.Context, user, id string, pk store.PartitionKey, n int64) (*verified, bool, error) {
	d, err := s.versions.GetIn(ctx, pk, todo.VersionID(id, n))
	if todo.IsKind(err, todo.NotFound) || (err == nil && d.Value.UserID != user) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	r, err := todo.NewAuditRecord(d.Value)
	if err != nil {
		return nil, false, todo.Wrap(todo.Internal, err, "version document does not encode")
	}
	a, err := hashchain.Content(&r)
	if err != nil {
		return nil, false, todo.Wrap(todo.Internal, err, "version document does not decode")
	}
	return &verified{r, a}, true, nil
}

// unverified refuses to serve version n of todo id, which the chain does
// not verify (v says where and why it breaks).
func unverified(id string, n int64, v Verification) error {
	return todo.Errorf(todo.Conflict, "version %d of todo %q does not verify: history breaks at version %d (%s); see GET %s/history/verify",
		n, id, v.BrokenAt, v.Reason, todoPath(id))
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

// linksToMove reports whether prevHash is the hash of the version of the
// caller's todo from that moved it to id: one query for that hash in the
// old id's history.
func (s *Service) linksToMove(ctx context.Context, user, from, id, prevHash string) (bool, error) {
	if prevHash == "" || todo.ValidateID(from) != nil {
		return false, nil
	}
	p, err := s.records.Query(ctx, repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(user, from)}},
		Filters:    []store.Filter{{Field: "hash", Op: store.Eq, Value: prevHash}},
		PageSize:   1,
	})
	if err != nil || len(p.Items) == 0 {
		return false, err
	}
	r, a, err := hashchain.DecodeRecord(p.Items[0].Value)
	return err == nil && a.Entity.MovingTo == id && a.Verify(r.PrevHash, r.Hash) == nil, nil
}
