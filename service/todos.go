package service

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// Create stores a new todo for the caller with an id the scheme generates.
func (s *Service) Create(ctx context.Context, f todo.Fields) (Result, error) {
	user, f, err := checkNew(ctx, f)
	if err != nil {
		return Result{}, err
	}
	key, err := s.scheme.NewKey(ctx, user, f.Category)
	if err != nil {
		return Result{}, err
	}
	return s.create(ctx, user, f, key)
}

// checkNew returns the caller and the content of their new todo,
// normalised and validated.
func checkNew(ctx context.Context, f todo.Fields) (string, todo.Fields, error) {
	user, err := caller(ctx)
	if err != nil {
		return "", f, err
	}
	f = normalized(f)
	return user, f, f.Validate()
}

// create stores the new todo f of user under key.
func (s *Service) create(ctx context.Context, user string, f todo.Fields, key partition.Key) (Result, error) {
	now := s.stamp()
	t := todo.Todo{ID: key.ID, Type: todo.TypeTodo, UserID: user, PartitionKey: key.Property,
		Version: 1, CreatedAt: now, UpdatedAt: now, LastOperation: todo.OpCreate, UpdatedBy: user}
	t.Fields = f
	etag, err := s.write(ctx, &t, store.BatchCreate, "")
	return Result{Todo: t, ETag: etag, Created: true}, err
}

// Get point-reads one of the caller's todos.
func (s *Service) Get(ctx context.Context, id string) (Result, error) {
	d, err := s.load(ctx, id)
	return Result{Todo: d.Value, ETag: d.ETag}, err
}

// Put updates the caller's todo id, or creates it under that id when it does
// not exist. ifMatch ("" = unconditional, "*" = must exist) guards the
// update; createOnly (If-None-Match: *) refuses to update an existing todo.
// Changing the category where the scheme keys on it is a Conflict: that is
// a move. An id that was deleted or moved away is re-created only with
// createOnly, so that a stale unconditional write cannot bring it back.
func (s *Service) Put(ctx context.Context, id string, f todo.Fields, ifMatch string, createOnly bool) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	f = normalized(f)
	if err := f.Validate(); err != nil {
		return Result{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Result{}, err
	}
	return s.readModifyWrite(ctx, id, ifMatch,
		func() (Result, error) { return s.createAt(ctx, user, id, pk, f, createOnly) },
		func(d repo.Doc[todo.Todo]) (Result, error) {
			if createOnly {
				return Result{}, todo.Errorf(todo.PreconditionFailed, "todo %q exists (If-None-Match: *)", id)
			}
			return s.update(ctx, user, d, f)
		})
}

// normalized is f with its due date in UTC to the second, the form lists
// compare and sort as text.
func normalized(f todo.Fields) todo.Fields {
	if f.DueDate != nil {
		d := f.DueDate.UTC().Truncate(time.Second)
		f.DueDate = &d
	}
	return f
}

func (s *Service) checkCategory(id string, cur, next string) error {
	if s.scheme.KeysOnCategory() && cur != next {
		return todo.Errorf(todo.Conflict, "the %s scheme keys todo %q on its category %q: move it with POST /api/todos/%s/move", s.scheme.Name(), id, cur, id)
	}
	return nil
}

func (s *Service) update(ctx context.Context, user string, d repo.Doc[todo.Todo], f todo.Fields) (Result, error) {
	if err := s.checkCategory(d.Value.ID, d.Value.Category, f.Category); err != nil {
		return Result{}, err
	}
	t := d.Value
	t.Fields = f
	s.advance(&t, todo.OpUpdate, user)
	etag, err := s.write(ctx, &t, store.BatchReplace, d.ETag)
	return Result{Todo: t, ETag: etag}, err
}

// advance makes t the next version, written now by user.
func (s *Service) advance(t *todo.Todo, op todo.Operation, user string) {
	t.Version++
	t.UpdatedAt = s.stamp()
	t.LastOperation = op
	t.UpdatedBy = user
}

// createAt creates a todo under a caller-chosen id. An id that had a history
// continues its version numbers and hash chain, so audit ids never repeat;
// re-creating it takes recreate (If-None-Match: *).
func (s *Service) createAt(ctx context.Context, user, id string, pk store.PartitionKey, f todo.Fields, recreate bool) (Result, error) {
	// The newest audit record usually tells where the id's history ends;
	// when the audit lags, the version document the write creates is taken
	// already and the batch fails on it: then the retained version
	// documents tell, and the write is tried once more. (A version audited
	// since the audit was read may have had its document retired, its id
	// still reserved: the write fails again, and readModifyWrite starts
	// over from a fresh read.) So a create at a new id costs its read, one
	// query and the batch.
	last, err := s.newestAudited(ctx, id)
	if err == nil && last.Version > 0 && !recreate {
		// A refusal must not rest on an audit that lags.
		last, err = s.newerRetained(ctx, id, pk, last)
	}
	if err != nil {
		return Result{}, err
	}
	res, err := s.createAfter(ctx, user, id, pk, f, recreate, last)
	var be *store.BatchError
	if errors.As(err, &be) && be.Index == 1 && todo.IsKind(err, todo.Conflict) {
		if last, err = s.newerRetained(ctx, id, pk, last); err != nil {
			return Result{}, err
		}
		res, err = s.createAfter(ctx, user, id, pk, f, recreate, last)
	}
	return res, err
}

// createAfter creates the todo id as the version after last.
func (s *Service) createAfter(ctx context.Context, user, id string, pk store.PartitionKey, f todo.Fields, recreate bool, last lastSeen) (Result, error) {
	switch {
	case recreate:
	case last.MovedTo != "":
		return Result{}, moved(id, last.MovedTo)
	case last.Version > 0:
		return Result{}, todo.Errorf(todo.Conflict,
			"todo %q was deleted: re-create it with If-None-Match: * or roll it back", id)
	}
	if err := s.checkIDCategory(user, id, pk, f.Category); err != nil {
		return Result{}, err
	}
	now := s.stamp()
	t := todo.Todo{ID: id, Type: todo.TypeTodo, UserID: user, Version: last.Version + 1, CreatedAt: now, UpdatedAt: now,
		LastOperation: todo.OpCreate, UpdatedBy: user, Hash: last.Hash}
	if s.scheme.Name() == partition.Synthetic {
		t.PartitionKey = pk[0]
	}
	t.Fields = f
	etag, err := s.write(ctx, &t, store.BatchCreate, "")
	var be *store.BatchError
	if errors.As(err, &be) && be.Index == 0 && todo.IsKind(err, todo.Conflict) {
		// Someone else's document holds the id in this partition (under the
		// category scheme users share partitions): no retry will help.
		d, gerr := s.todos.GetIn(ctx, pk, id)
		if gerr == nil && (d.Value.UserID != user || d.Value.Type != todo.TypeTodo || d.Value.MovingTo != "") {
			err = todo.Errorf(todo.Conflict, "id %q is already in use; create the todo with POST /api/todos", id)
		}
	}
	return Result{Todo: t, ETag: etag, Created: true}, err
}

// checkIDCategory refuses a body whose category disagrees with the one the
// id embeds.
func (s *Service) checkIDCategory(user, id string, pk store.PartitionKey, category string) error {
	if !s.scheme.KeysOnCategory() {
		return nil
	}
	probe := todo.Todo{UserID: user, Fields: todo.Fields{Category: category}}
	if !s.scheme.KeyOf(&probe).Equal(pk) {
		return todo.Errorf(todo.Conflict, "id %q belongs to another category than %q", id, category)
	}
	return nil
}

// lastSeen is what the newest version of an id says, for an id whose todo
// does not exist now. The zero value means the id never had a todo.
type lastSeen struct {
	Version int64
	Hash    string
	// MovedTo is set when that version is a move's mark: the todo lives
	// under this id now.
	MovedTo string
}

// lastVersion finds the newest version a todo id has had, for an id whose
// todo does not exist now (deleted, moved away, or never created): the
// newest audit record, then any newer retained version documents, found by
// point reads of their deterministic ids (the audit may lag behind the
// outbox). The first version document not found may have been retired
// since the audit was read, its record written in the same transaction:
// the audit is read again, until it says nothing newer.
func (s *Service) lastVersion(ctx context.Context, id string, pk store.PartitionKey) (lastSeen, error) {
	last, err := s.newestAudited(ctx, id)
	for err == nil {
		var seen, again lastSeen
		if seen, err = s.newerRetained(ctx, id, pk, last); err != nil {
			break
		}
		if again, err = s.newestAudited(ctx, id); err != nil || again.Version <= seen.Version {
			return seen, err
		}
		last = again
	}
	return lastSeen{}, err
}

// newerRetained is the newest of last and the retained version documents
// after it, found by point reads of their deterministic ids.
func (s *Service) newerRetained(ctx context.Context, id string, pk store.PartitionKey, last lastSeen) (lastSeen, error) {
	for {
		v, err := s.versions.GetIn(ctx, pk, todo.VersionID(id, last.Version+1))
		switch {
		case todo.IsKind(err, todo.NotFound):
			return last, nil
		case err != nil:
			return lastSeen{}, err
		case v.Value.UserID != userFrom(ctx):
			// Users share partitions under the category scheme: this id's
			// history belongs to someone else.
			return lastSeen{}, todo.Errorf(todo.Conflict, "id %q is already in use; create the todo with POST /api/todos", id)
		}
		last = lastSeen{Version: v.Value.Version, Hash: v.Value.Hash, MovedTo: v.Value.Entity.MovingTo}
	}
}

// newestAudited is what the caller's newest audit record of id says: one
// query, in the id's audit partition.
func (s *Service) newestAudited(ctx context.Context, id string) (lastSeen, error) {
	var last lastSeen
	ap, err := s.audit.Query(ctx, repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(userFrom(ctx), id)}},
		OrderBy:    []store.Order{{Field: "version", Desc: true}},
		PageSize:   1,
	})
	if err != nil {
		return last, err
	}
	if len(ap.Items) > 0 {
		rec := ap.Items[0].Value
		var e struct {
			MovingTo string `json:"movingTo"`
		}
		if err := json.Unmarshal(rec.Entity, &e); err != nil {
			return last, todo.Wrap(todo.Internal, err, "audit record does not decode")
		}
		last = lastSeen{Version: rec.Version, Hash: rec.Hash, MovedTo: e.MovingTo}
	}
	return last, nil
}

// Delete removes the caller's todo, recording a delete version. Deleting
// an id whose todo was moved away is a Conflict naming the new id.
func (s *Service) Delete(ctx context.Context, id, ifMatch string) error {
	user, err := caller(ctx)
	if err != nil {
		return err
	}
	_, err = s.readModifyWrite(ctx, id, ifMatch, nil, func(d repo.Doc[todo.Todo]) (Result, error) {
		t := d.Value
		s.advance(&t, todo.OpDelete, user)
		_, err := s.write(ctx, &t, store.BatchDelete, d.ETag)
		return Result{}, err
	})
	if ifMatch != "" {
		return err
	}
	return s.movedAway(ctx, user, id, err)
}

// movedAway turns err, a NotFound for the caller's todo id, into the
// Conflict naming the todo's new id when it was moved away, as every change
// addressed to the old id answers. Other errors stay as they are.
func (s *Service) movedAway(ctx context.Context, user, id string, err error) error {
	if !todo.IsKind(err, todo.NotFound) {
		return err
	}
	if to := todo.MovedTo(err); to != "" {
		return moved(id, to)
	}
	pk, perr := s.scheme.Resolve(user, id)
	if perr != nil {
		return perr
	}
	last, lerr := s.lastVersion(ctx, id, pk)
	switch {
	case lerr != nil && !todo.IsKind(lerr, todo.Conflict):
		return lerr
	case last.MovedTo != "":
		return moved(id, last.MovedTo)
	}
	return err
}

// ListOptions select, sort and page a list.
type ListOptions struct {
	Category    *string
	IsCompleted *bool
	// Tags keeps the todos that have every one of these tags.
	Tags []string
	// DueBefore and DueAfter keep the todos due strictly before or after
	// a time; a todo without a due date is neither.
	DueBefore, DueAfter *time.Time
	// Title keeps the todos whose title contains it, ignoring case.
	Title *string
	// Sort is one of partition.SortFields, "" for the store's own order;
	// Desc reverses it.
	Sort         string
	Desc         bool
	PageSize     int
	Continuation string
}

// Page is one page of todos.
type Page struct {
	Items        []Result
	Continuation string
}

// DefaultPageSize and MaxPageSize bound list pages.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

func (o *ListOptions) check() error {
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.PageSize < 1 || o.PageSize > MaxPageSize {
		return todo.Errorf(todo.Invalid, "pageSize must be between 1 and %d", MaxPageSize)
	}
	if o.Category != nil {
		if err := todo.ValidateCategory(*o.Category); err != nil {
			return err
		}
	}
	if len(o.Tags) > todo.MaxTags {
		return todo.Errorf(todo.Invalid, "at most %d tags may be given", todo.MaxTags)
	}
	for _, tag := range o.Tags {
		if err := todo.ValidateTag(tag); err != nil {
			return err
		}
	}
	for _, d := range []*time.Time{o.DueBefore, o.DueAfter} {
		if d == nil {
			continue
		}
		if err := todo.ValidateDueDate(*d); err != nil {
			return err
		}
	}
	if o.Title != nil {
		if err := todo.ValidateSearch(*o.Title); err != nil {
			return err
		}
	}
	switch {
	case o.Sort != "" && !slices.Contains(partition.SortFields, o.Sort):
		return todo.Errorf(todo.Invalid, "sort must be one of %s", strings.Join(partition.SortFields, ", "))
	case o.Sort == "" && o.Desc:
		return todo.Errorf(todo.Invalid, "a descending order needs sort")
	}
	return nil
}

// filters are the conditions o adds to a plan's: each a query the todo
// container's indexing policy serves. Due dates are stored in UTC to the
// second (see normalized), so comparing their RFC 3339 text compares the
// times: a bound with a fraction of a second is moved to the whole
// second that keeps the same todos.
func (o *ListOptions) filters() []store.Filter {
	var f []store.Filter
	if o.IsCompleted != nil {
		f = append(f, store.Filter{Field: "isCompleted", Op: store.Eq, Value: *o.IsCompleted})
	}
	for _, tag := range o.Tags {
		f = append(f, store.Filter{Field: "tags", Op: store.ArrayContains, Value: tag})
	}
	if o.DueBefore != nil {
		before := o.DueBefore.UTC()
		if t := before.Truncate(time.Second); !t.Equal(before) {
			before = t.Add(time.Second)
		}
		f = append(f, store.Filter{Field: "dueDate", Op: store.Lt, Value: before.Format(time.RFC3339)})
	}
	if o.DueAfter != nil {
		f = append(f, store.Filter{Field: "dueDate", Op: store.Gt, Value: o.DueAfter.UTC().Format(time.RFC3339)})
	}
	if o.Title != nil {
		f = append(f, store.Filter{Field: "title", Op: store.ContainsFold, Value: *o.Title})
	}
	return f
}

// List returns a page of the caller's todos at the cheapest scope the scheme
// allows.
func (s *Service) List(ctx context.Context, o ListOptions) (Page, error) {
	user, err := caller(ctx)
	if err != nil {
		return Page{}, err
	}
	if err := o.check(); err != nil {
		return Page{}, err
	}
	return s.list(ctx, s.scheme.List(user, o.Category), o)
}

// Admin returns a page of every user's todos: a cross-partition report.
func (s *Service) Admin(ctx context.Context, o ListOptions) (Page, error) {
	if err := o.check(); err != nil {
		return Page{}, err
	}
	return s.list(ctx, s.scheme.Admin(o.Category), o)
}

func (s *Service) list(ctx context.Context, plan partition.Plan, o ListOptions) (Page, error) {
	filters := append(append([]store.Filter(nil), plan.Filters...), store.Filter{Field: "movingTo", Op: store.NotDefined})
	spec := repo.Spec{Partitions: plan.Partitions, Filters: append(filters, o.filters()...), PageSize: o.PageSize, Continuation: o.Continuation}
	if o.Sort != "" {
		spec.Sort = &store.Order{Field: o.Sort, Desc: o.Desc}
	}
	// The plan's scope is what the list reports, however the store counts
	// the requests it takes.
	store.Charge(ctx, store.Cost{Scope: plan.Scope})
	p, err := s.todos.Query(ctx, spec)
	page := Page{Continuation: p.Continuation}
	for _, d := range p.Items {
		page.Items = append(page.Items, Result{Todo: d.Value, ETag: d.ETag})
	}
	return page, err
}
