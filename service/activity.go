package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// ActivityFilter selects audit records from the activity view: those of
// one user (as the actor, the owner of the todo, or both), in a time
// range, optionally of one todo, operation or category.
type ActivityFilter struct {
	Actor, Owner string
	EntityID     string
	Operation    todo.Operation
	Category     string
	// Since is inclusive and Until exclusive. Until defaults to now and
	// Since to DefaultActivityWindow before Until.
	Since, Until time.Time
	PageSize     int
	Continuation string
	// AsStored hands records on as they are stored, as an NDJSON export
	// shows them: one stored with its seed shows it in place of its
	// commitments (see Service.HistoryAsStored).
	AsStored bool
}

// DefaultActivityWindow is how far back an activity query without since
// reaches; MaxActivityWindow is the longest range one query may span (a
// query reads one partition per month of it).
const (
	DefaultActivityWindow = 366 * 24 * time.Hour
	MaxActivityWindow     = 10 * 366 * 24 * time.Hour
)

// ActivityPage is one page of audit records, newest first.
type ActivityPage struct {
	Items        []todo.AuditRecord
	Continuation string
}

// MyActivity lists the audit records of the caller's todos, newest
// first. The caller is the owner; an actor filter is refused.
func (s *Service) MyActivity(ctx context.Context, f ActivityFilter) (ActivityPage, error) {
	user, err := caller(ctx)
	if err != nil {
		return ActivityPage{}, err
	}
	if f.Actor != "" || f.Owner != "" {
		return ActivityPage{}, todo.Errorf(todo.Invalid, "activity is the caller's own; actor and owner are for administrators")
	}
	f.Owner = user
	return s.activity(ctx, f)
}

// AuditActivity lists, for administrators, the audit records a user made
// (Actor), or that were made to a user's todos (Owner), or both, newest
// first.
func (s *Service) AuditActivity(ctx context.Context, f ActivityFilter) (ActivityPage, error) {
	if _, err := caller(ctx); err != nil {
		return ActivityPage{}, err
	}
	if f.Actor == "" && f.Owner == "" {
		return ActivityPage{}, todo.Errorf(todo.Invalid, "actor or owner is required: the activity view is kept per user")
	}
	return s.activity(ctx, f)
}

// Activity is AuditActivity for administrators (admin), MyActivity for
// everyone else.
func (s *Service) Activity(ctx context.Context, f ActivityFilter, admin bool) (ActivityPage, error) {
	if admin {
		return s.AuditActivity(ctx, f)
	}
	return s.MyActivity(ctx, f)
}

// activity reads the activity partitions of one user, one per month from
// Until's back to Since's, newest first: each a single-partition query
// ordered by time, so a page costs about one partition's page however many
// records the audit holds. The continuation carries Until, so that a
// default Until (now) stays the same from page to page.
func (s *Service) activity(ctx context.Context, f ActivityFilter) (ActivityPage, error) {
	user := f.Actor
	if user == "" {
		user = f.Owner
	}
	for _, u := range []string{f.Actor, f.Owner} {
		if u != "" {
			if err := todo.ValidateUserID(u); err != nil {
				return ActivityPage{}, err
			}
		}
	}
	if f.PageSize == 0 {
		f.PageSize = DefaultPageSize
	}
	if f.PageSize < 1 || f.PageSize > MaxPageSize {
		return ActivityPage{}, todo.Errorf(todo.Invalid, "pageSize must be between 1 and %d", MaxPageSize)
	}
	var inner string
	if f.Continuation != "" {
		head, rest, ok := strings.Cut(f.Continuation, ".")
		n, err := strconv.ParseInt(head, 10, 64)
		if !ok || err != nil || rest == "" || (!f.Until.IsZero() && n != f.Until.UnixNano()) {
			return ActivityPage{}, todo.Errorf(todo.Invalid, "continuation token is malformed or belongs to another query")
		}
		f.Until, inner = time.Unix(0, n).UTC(), rest
	}
	if f.Until.IsZero() {
		f.Until = s.now().UTC()
	}
	if f.Since.IsZero() {
		f.Since = f.Until.Add(-DefaultActivityWindow)
	}
	switch {
	case !f.Since.Before(f.Until):
		return ActivityPage{}, todo.Errorf(todo.Invalid, "since must be before until")
	case f.Until.Sub(f.Since) > MaxActivityWindow:
		return ActivityPage{}, todo.Errorf(todo.Invalid, "since and until may be at most %d days apart", int(MaxActivityWindow/(24*time.Hour)))
	}
	filters := []store.Filter{
		{Field: "at", Op: store.Ge, Value: todo.TimeKey(f.Since)},
		{Field: "at", Op: store.Lt, Value: todo.TimeKey(f.Until)},
	}
	for _, eq := range [][2]string{{"actor", f.Actor}, {"owner", f.Owner}, {"entityId", f.EntityID},
		{"operation", string(f.Operation)}, {"category", f.Category}} {
		if eq[1] != "" {
			filters = append(filters, store.Filter{Field: eq[0], Op: store.Eq, Value: eq[1]})
		}
	}
	p, err := s.audit.Query(ctx, repo.Spec{
		Partitions:   activityPartitions(user, f.Since, f.Until),
		Filters:      filters,
		OrderBy:      []store.Order{{Field: "at", Desc: true}},
		PageSize:     f.PageSize,
		Continuation: inner,
	})
	var page ActivityPage
	if err != nil {
		return page, err
	}
	if page.Items, err = s.activityRecords(ctx, p.Items, f.AsStored); err != nil {
		return ActivityPage{}, err
	}
	if p.Continuation != "" {
		page.Continuation = strconv.FormatInt(f.Until.UnixNano(), 10) + "." + p.Continuation
	}
	return page, nil
}

// recordReadsAtOnce bounds the point reads one activity page makes at once.
const recordReadsAtOnce = 8

// activityRecords returns the audit records a page of activity entries
// stands for, in its order, with their commitments (see
// hashchain.ExpandRecord), or asStored with the seed they may be
// stored with (see reencode): a reference is read from its record's
// partition (a point read each, at most recordReadsAtOnce at a time), a
// copy is its own record. A reference whose record is gone (a retention
// purge removes the entries first, the record after) is left out.
func (s *Service) activityRecords(ctx context.Context, entries []repo.Doc[todo.AuditRecord], asStored bool) ([]todo.AuditRecord, error) {
	out := make([]todo.AuditRecord, len(entries)) // a record gone stays without an id
	give := expand
	if asStored {
		give = reencode
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(recordReadsAtOnce)
	for i, d := range entries {
		if !d.Value.IsReference() {
			out[i] = d.Value.Record()
			if err := give(&out[i]); err != nil {
				return nil, err
			}
			continue
		}
		g.Go(func() error {
			key, id := d.Value.RecordKey()
			r, err := s.audit.GetIn(gctx, store.PartitionKey{key}, id)
			switch {
			case todo.IsKind(err, todo.NotFound):
				return nil
			case err != nil:
				return err
			}
			out[i] = r.Value
			return give(&out[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(r todo.AuditRecord) bool { return r.ID == "" }), nil
}

// expand gives r its commitments in place of the seed it stores them as.
func expand(r *todo.AuditRecord) error {
	if err := hashchain.ExpandRecord(r); err != nil {
		return refused(r, err)
	}
	return nil
}

// refused is the error of serving r, which does not decode (err).
func refused(r *todo.AuditRecord, err error) error {
	return todo.Errorf(todo.Conflict, "the audit record %q of todo %q is refused (%v); see GET %s/history/verify",
		r.ID, r.EntityID, err, todoPath(r.EntityID))
}

// reencode gives r, when it stores a seed, its entity decoded strictly and
// encoded again, as expand gives it with the commitments: the same bytes
// whichever form serves the record, in whatever order the store keeps
// the entity's members.
func reencode(r *todo.AuditRecord) error {
	if r.Seed == "" {
		return nil
	}
	var t todo.Todo
	err := jsondoc.UnmarshalStrict(r.Entity, &t)
	if err == nil {
		r.Entity, err = todo.MarshalJSON(t)
	}
	if err != nil {
		return refused(r, fmt.Errorf("entity does not decode as a todo: %w", err))
	}
	return nil
}

// activityPartitions are user's activity partitions from the month of the
// last instant before until back to since's month.
func activityPartitions(user string, since, until time.Time) []store.PartitionKey {
	last := until.Add(-time.Nanosecond).UTC()
	m := time.Date(last.Year(), last.Month(), 1, 0, 0, 0, 0, time.UTC)
	var out []store.PartitionKey
	for !m.Before(time.Date(since.UTC().Year(), since.UTC().Month(), 1, 0, 0, 0, 0, time.UTC)) {
		out = append(out, store.PartitionKey{todo.ActivityKey(user, m)})
		m = m.AddDate(0, -1, 0)
	}
	return out
}
