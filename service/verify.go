package service

import (
	"context"
	"encoding/json"
	"errors"
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
	// Unverified is why the content is not what the record's hash covers,
	// found as it was decoded; nil when it is.
	Unverified error
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
	w := &walker{s: s, ctx: ctx, user: user, id: id, pk: pk, outbox: outbox, reach: reach, step: step, visit: visit, next: 1}
	w.spec = repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(user, id)}},
		OrderBy:    []store.Order{{Field: "version"}},
		PageSize:   store.MaxPageSize,
	}
	if step != nil && step.From > 1 {
		// The walk starts after version From - 1 in the range index, so
		// that a step costs what it checks, not the versions before it.
		w.prev, w.next = step.PrevHash, step.From
		w.seekAfter(step.From - 1)
	}
	w.start = w.next
	check, cancel := checkDeadline(ctx, step != nil)
	defer cancel()
	w.check = check
	err := w.run()
	return w.out, w.newest, w.head, err
}

// walker is one walk of a todo's chain (see walk): what it was asked,
// where it is, and what it found.
type walker struct {
	s           *Service
	ctx, check  context.Context // check: ctx, or the earlier end of a walk in steps
	user, id    string
	pk          store.PartitionKey
	outbox      bool
	reach       int64
	step        *VerifyStep
	visit       func(*verified)
	spec        repo.Spec // the query of the audit records from where the walk is
	out         Verification
	newest      *verified            // the newest version that verified
	head        *repo.Doc[todo.Todo] // the caller's todo, as read, if it is there
	prev        string               // the hash the next version must link to
	next, start int64                // the version to check next, and the first
}

// run reads the records, the todo, then the version documents after the
// newest record. A version document found missing may have been retired
// since the records were read, its record written in the same
// transaction: the records from there on are read once more, for as long
// as that finds more. Then the newest version is compared with the todo.
func (w *walker) run() error {
	readHead, rechecked := true, int64(0)
	for {
		if done, err := w.records(); done || err != nil {
			return err
		}
		if readHead {
			readHead = false
			if done, err := w.readHead(); done || err != nil {
				return err
			}
		}
		missed, done, err := w.unaudited()
		if done || err != nil {
			return err
		}
		if !missed || rechecked == w.next {
			break
		}
		rechecked = w.next
		w.seekAfter(w.next - 1)
	}
	return w.finish()
}

// seekAfter makes the next query of the records start after version n
// (from the first when n is 0).
func (w *walker) seekAfter(n int64) {
	w.spec.Continuation, w.spec.After = "", nil
	if n > 0 {
		w.spec.After = &store.Seek{Order: w.spec.OrderBy[0], Value: json.RawMessage(strconv.FormatInt(n, 10)), ID: todo.AuditID(w.id, n)}
	}
}

// broken ends the walk at version k, which does not verify, for the
// reason the format gives.
func (w *walker) broken(k int64, format string, args ...any) {
	w.out.BrokenAt, w.out.Reason = k, fmt.Sprintf(format, args...)
}

// late ends a walk that ran out of time. A step that checked versions
// ends with them: before the version next it was about to read (more),
// or else before the newest it checked, which the next step checks again
// with the todo (its next may not exist).
func (w *walker) late(more bool, err error) error {
	switch {
	case w.step != nil && more && w.out.Versions > 0:
		w.out.Next = &VerifyStep{From: w.next, PrevHash: w.prev}
	case w.step != nil && w.out.Versions > 1:
		w.out.Versions--
		w.out.Checked = w.out.Checked[:w.out.Versions]
		w.out.Next = &VerifyStep{From: w.newest.Record.Version, PrevHash: w.newest.Record.PrevHash}
	case err != nil:
		return err
	default:
		return todo.Wrap(todo.Unavailable, w.check.Err(), "the history could not be checked within the deadline")
	}
	return nil
}

// records checks the audit records from where the walk is on; done when
// the walk ended there.
func (w *walker) records() (done bool, err error) {
	for {
		p, err := w.s.records.Query(w.check, w.spec)
		if err != nil && w.check.Err() != nil {
			return true, w.late(false, err)
		}
		if err != nil {
			return true, err
		}
		for _, d := range p.Items {
			// A step checks at least one version, so that steps progress.
			if w.check.Err() != nil && (w.step == nil || w.out.Versions > 0) {
				return true, w.late(true, nil)
			}
			// Decoded as stored, its hash checked from its seed: the
			// walk reads its entity, never its commitments.
			r, a, err := hashchain.DecodeSealedRecord(d.Value)
			var unverified *hashchain.UnverifiedError
			if err != nil && !errors.As(err, &unverified) {
				w.broken(recordVersion(w.id, r.ID, w.next), "the audit record %q: %v", r.ID, err)
				return true, nil
			}
			if done, err := w.take(&verified{r, a, err}); done || err != nil {
				return true, err
			}
		}
		if p.Continuation == "" {
			return false, nil
		}
		w.spec.Continuation = p.Continuation
	}
}

// readHead reads the caller's todo; done when the walk ended there.
func (w *walker) readHead() (done bool, err error) {
	d, err := w.s.todos.GetIn(w.ctx, w.pk, w.id)
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		if w.ctx.Err() != nil {
			return true, w.late(false, err)
		}
		return true, err
	}
	if err == nil && d.Value.Type == todo.TypeTodo && d.Value.UserID == w.user {
		w.head = &d
	}
	if w.newest == nil && w.start > 1 && (w.head == nil || w.head.Value.Version < w.start) {
		return true, todo.Errorf(todo.NotFound, "todo %q has no version %d", w.id, w.start)
	}
	return false, nil
}

// unaudited checks the version documents after the newest record: with
// outbox, those up to the todo's version and reach (all there are when
// the todo is gone); without, it only looks for one when the todo is gone,
// which means its newest versions are not audited yet. missed is set
// when a version document was looked for and not found; done when the
// walk ended there.
func (w *walker) unaudited() (missed, done bool, err error) {
	switch {
	case w.outbox:
		for w.head == nil || w.next <= max(w.head.Value.Version, w.reach) {
			v, ok, err := w.s.versionDoc(w.ctx, w.user, w.id, w.pk, w.next)
			if err != nil {
				return false, true, err
			}
			if !ok {
				return true, false, nil
			}
			if done, err := w.take(v); done || err != nil {
				return false, true, err
			}
		}
	case w.head == nil:
		_, ok, err := w.s.versionDoc(w.ctx, w.user, w.id, w.pk, w.next)
		if err != nil {
			return false, true, err
		}
		if ok {
			w.broken(w.next, "version %d is missing (not audited yet, or removed)", w.next)
			return false, true, nil
		}
		return true, false, nil
	}
	return false, false, nil
}

// take checks the next version (see accept); done when the walk ended
// there, at a version that does not verify or an error.
func (w *walker) take(v *verified) (done bool, err error) {
	k, reason, err := w.accept(v)
	if err != nil || reason != "" {
		w.out.BrokenAt, w.out.Reason = k, reason
		return true, err
	}
	return false, nil
}

// accept checks v as the next version of the chain and counts it; when it
// does not verify, it returns the version it breaks at and why.
func (w *walker) accept(v *verified) (int64, string, error) {
	r, e := &v.Record, &v.Audited.Entity
	if w.out.Versions == 0 && r.Version > w.next {
		if err := w.purged(r.Version); err != nil {
			return w.next, "", err
		}
	}
	id, next := w.id, w.next
	switch {
	case r.ID != todo.AuditID(id, r.Version):
		return recordVersion(id, r.ID, next), fmt.Sprintf("the audit record %q says it is version %d", r.ID, r.Version), nil
	case r.Version != next:
		return next, fmt.Sprintf("version %d is missing", next), nil
	case r.EntityID != id || e.ID != id || e.UserID != w.user || e.Version != r.Version:
		return next, fmt.Sprintf("version %d is not a version of this todo", next), nil
	}
	if next == 1 && r.Operation == todo.OpMove && e.MovedFrom != "" {
		ok, err := w.s.linksToMove(w.ctx, w.user, e.MovedFrom, id, r.PrevHash)
		if err != nil || !ok {
			return next, fmt.Sprintf("version 1 does not link to the version of %q that moved it here", e.MovedFrom), err
		}
	} else if r.PrevHash != w.prev {
		return next, fmt.Sprintf("the prevHash of version %d is not the hash of version %d", next, next-1), nil
	}
	if v.Unverified != nil {
		return next, fmt.Sprintf("version %d: %v", next, v.Unverified), nil
	}
	w.count(v)
	return 0, "", nil
}

// purged starts the chain at version first, the first of a history that
// starts late, when the retention purge left it so: the versions before it
// are purged, not missing, and it links to the last one purged.
func (w *walker) purged(first int64) error {
	m, err := governance.ReadPurgeMarker(w.ctx, w.s.auditC, w.user, w.id)
	if err != nil {
		return err
	}
	if m.PurgedBefore == first {
		w.prev, w.next, w.out.PurgedBefore = m.LastHash, m.PurgedBefore, m.PurgedBefore
	}
	return nil
}

// count takes v, which verified, as the newest version checked.
func (w *walker) count(v *verified) {
	r := &v.Record
	if v.Audited.Erased() {
		w.out.Erased++
	}
	if v.Audited.Chain < hashchain.V2 {
		w.out.FirstEncoding++
	}
	if w.visit != nil {
		w.visit(v)
	}
	w.newest, w.prev = v, r.Hash
	w.next++
	w.out.Versions++
	w.out.Checked = append(w.out.Checked, CheckedVersion{Version: r.Version, PrevHash: r.PrevHash, Hash: r.Hash, At: r.DateCreatedUTC})
}

// finish compares the newest version with the todo: the same version,
// hash and content; for a todo that is gone, a delete or a move.
func (w *walker) finish() error {
	last, newest := w.next-1, w.newest
	if w.head != nil {
		t := &w.head.Value
		switch {
		case t.Version > last:
			w.broken(w.next, "version %d is missing (not audited yet, or removed)", w.next)
		case t.Version < last:
			w.broken(t.Version+1, "the todo is at version %d, but its history goes on to version %d", t.Version, last)
		case t.Hash != w.prev:
			w.broken(last, "the todo's latest hash is not the hash of version %d", last)
		case newest.Record.Operation == todo.OpDelete:
			w.broken(last, "version %d deletes the todo, but the todo is there", last)
		default:
			if field := newest.Audited.Differs(t); field != "" {
				w.broken(last, "the todo's %s is not that of its latest version %d", field, last)
			} else {
				w.out.Verified = true
			}
		}
		return nil
	}
	switch {
	case newest == nil:
		return notFound(w.id)
	case newest.Record.Operation != todo.OpDelete && newest.Audited.Entity.MovingTo == "":
		w.broken(last, "the todo is gone, but its latest version %d neither deletes nor moves it", last)
	default:
		w.out.Verified = true
	}
	return nil
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
	a, err := hashchain.Verified(&r)
	var unverified *hashchain.UnverifiedError
	if err != nil && !errors.As(err, &unverified) {
		return nil, false, todo.Wrap(todo.Internal, err, "version document does not decode")
	}
	return &verified{r, a, err}, true, nil
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
