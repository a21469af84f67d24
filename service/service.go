// Package service is the todo application: creates, updates, deletes,
// rollbacks and moves written as one transactional batch each (the todo
// change plus its immutable version document, a transactional outbox), point
// reads through the partitioned repository, list queries at the scope the
// partition scheme plans, and histories read from the audit container.
package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/backoff"
	"github.com/todoaudit/todo/internal/ctxvalue"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
)

// Service runs the todo use cases for authenticated callers.
type Service struct {
	scheme   partition.Scheme
	todos    *repo.Repository[todo.Todo]
	versions *repo.Repository[todo.Version]
	audit    *repo.Repository[todo.AuditRecord]
	// records reads audit records as stored, for verification.
	records *repo.Repository[repo.Stored]
	// deadLetters reads the audit container's dead-letter partition.
	deadLetters *repo.Repository[todo.DeadLetter]
	// idempotency reads and writes the records of idempotent requests.
	idempotency *repo.Repository[idempotencyRecord]
	// auditC is the audit container itself, for legal holds.
	auditC store.Container
	ttl    int
	now    func() time.Time
	// onErasure is told of every erasure started, and of every legal hold
	// released.
	onErasure func()
}

// Options configure a Service; nil means defaults.
type Options struct {
	// VersionTTL is how long version documents are kept (the window in
	// which a lost audit record can be refilled); 30 days when zero.
	VersionTTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnErasure, when set, is called after an erasure is started or a
	// legal hold released, to run an erasure now rather than at the next
	// reconcile pass.
	OnErasure func()
}

// New returns a Service over the todo and audit containers.
func New(scheme partition.Scheme, todos, audit store.Container, o *Options) *Service {
	if o == nil {
		o = &Options{}
	}
	s := &Service{scheme: scheme, ttl: int(o.VersionTTL / time.Second), now: o.Now, auditC: audit, onErasure: o.OnErasure}
	if s.ttl <= 0 {
		s.ttl = int(todo.DefaultVersionTTL / time.Second)
	}
	if s.now == nil {
		s.now = time.Now
	}
	resolve := func(ctx context.Context, id string) (store.PartitionKey, error) {
		return scheme.Resolve(userFrom(ctx), id)
	}
	s.todos = repo.New[todo.Todo](todos, resolve)
	s.versions = repo.New[todo.Version](todos, resolve)
	s.idempotency = repo.New[idempotencyRecord](todos, nil)
	auditKey := func(ctx context.Context, id string) (store.PartitionKey, error) {
		return store.PartitionKey{todo.EntityKey(userFrom(ctx), id)}, nil
	}
	s.audit = repo.New[todo.AuditRecord](audit, auditKey)
	s.records = repo.New[repo.Stored](audit, auditKey)
	s.deadLetters = repo.New[todo.DeadLetter](audit, nil)
	return s
}

// Scheme returns the partition scheme in use.
func (s *Service) Scheme() partition.Scheme { return s.scheme }

type userKey struct{}

// UserContext carries the authenticated caller, in one allocation with
// it. WithUser allocates one; a caller that starts several such contexts
// for each request can hold them in one allocation and Init each.
type UserContext = ctxvalue.Node[userKey, string]

// WithUser returns a context carrying the authenticated caller.
func WithUser(ctx context.Context, user string) context.Context {
	return ctxvalue.With[userKey](ctx, user)
}

func userFrom(ctx context.Context) string {
	if u := ctxvalue.Get[userKey, string](ctx); u != nil {
		return *u
	}
	return ""
}

// Result is a todo as written or read. What it cost is charged to the
// store.Meter of the call's context.
type Result struct {
	Todo    todo.Todo
	ETag    string
	Created bool
}

func (s *Service) stamp() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Caller returns the authenticated user of ctx, refusing a context
// without one, for the routes beside the service that act for the caller.
func Caller(ctx context.Context) (string, error) { return caller(ctx) }

// caller returns the authenticated user, refusing a context without one.
func caller(ctx context.Context) (string, error) {
	u := userFrom(ctx)
	if u == "" {
		return "", todo.Errorf(todo.Unauthorized, "no authenticated user")
	}
	return u, todo.ValidateUserID(u)
}

// write commits a new state of a todo with its version document in one
// batch: kind is the store operation on the todo document (create, replace
// or delete), ifMatch its condition. The version, and so the audit record,
// describe the change by t's LastOperation and UpdatedBy. It seals t
// first (t.Hash must be the hash of the version t follows, "" for a new
// id); the version document keeps the seed of its commitments, the todo
// document only the links.
func (s *Service) write(ctx context.Context, t *todo.Todo, kind store.OpKind, ifMatch string) (string, error) {
	seed := hashchain.Seal(t)
	pk := s.scheme.KeyOf(t)
	v := todo.NewVersion(*t, seed, s.ttl)
	v.TraceParent = telemetry.TraceParent(ctx)
	vop, err := repo.Create(v)
	if err != nil {
		return "", err
	}
	var top store.Op
	switch kind {
	case store.BatchCreate:
		top, err = repo.Create(*t)
	case store.BatchReplace:
		top, err = repo.Replace(*t, ifMatch)
	case store.BatchDelete:
		top = repo.Delete(t.ID, ifMatch)
	}
	if err != nil {
		return "", err
	}
	res, err := s.todos.Batch(ctx, pk, []store.Op{top, vop})
	if err != nil {
		return "", err
	}
	return res[0].ETag, nil
}

// load point-reads the caller's todo. Another user's todo and a document
// of another type read as not found. So does a todo being moved away: its
// move is finished here, should an earlier attempt have stopped half way.
func (s *Service) load(ctx context.Context, id string) (repo.Doc[todo.Todo], error) {
	user, err := caller(ctx)
	if err != nil {
		return repo.Doc[todo.Todo]{}, err
	}
	d, _, err := s.todos.Get(ctx, id)
	if todo.IsKind(err, todo.NotFound) {
		return d, notFound(id) // in the API's words, not the store's
	}
	if err != nil {
		return d, err
	}
	if d.Value.Type != todo.TypeTodo || d.Value.UserID != user {
		return repo.Doc[todo.Todo]{}, notFound(id)
	}
	if d.Value.MovingTo != "" {
		if _, err := s.finishMove(ctx, user, d.Value, d.ETag); err != nil && !todo.IsKind(err, todo.NotFound) {
			return repo.Doc[todo.Todo]{}, err
		}
		return repo.Doc[todo.Todo]{}, &todo.Error{Kind: todo.NotFound, MovedTo: d.Value.MovingTo,
			Message: fmt.Sprintf("todo %q has moved to %q", id, d.Value.MovingTo)}
	}
	return d, nil
}

func notFound(id string) error { return todo.Errorf(todo.NotFound, "todo %q not found", id) }

// moved refuses a change addressed to an id whose todo was moved away:
// writing there would bring the old id back beside the new one.
func moved(id, to string) error {
	return &todo.Error{Kind: todo.Conflict, MovedTo: to,
		Message: fmt.Sprintf("todo %q was moved to %q: address it by its new id", id, to)}
}

// checkIfMatch compares a caller's If-Match value with the current ETag.
// Stores differ in whether their ETags carry HTTP quotes, so quotes are
// not significant.
func checkIfMatch(ifMatch, etag string) error {
	if ifMatch != "" && ifMatch != "*" && strings.Trim(ifMatch, `"`) != strings.Trim(etag, `"`) {
		return todo.Errorf(todo.PreconditionFailed, "the todo has changed since ETag %s", ifMatch)
	}
	return nil
}

// retryable reports whether a write's batch lost a race it may simply run
// again (another writer changed or deleted the todo between our read and
// our write): the caller did not pin a version ("*" pins none), so the next
// attempt re-reads.
func retryable(err error, ifMatch string) bool {
	var be *store.BatchError
	if (ifMatch != "" && ifMatch != "*") || !errors.As(err, &be) {
		return false
	}
	return todo.IsKind(err, todo.PreconditionFailed) || todo.IsKind(err, todo.Conflict) || todo.IsKind(err, todo.NotFound)
}

// A write that keeps losing races is retried writeAttempts times in all,
// backing off with jitter so that the writers contending for one todo
// spread out; the caller then gets 503 with contentionRetryAfter.
const (
	writeAttempts        = 8
	contentionRetryAfter = time.Second
)

var contentionBackoff = backoff.Policy{Base: 2 * time.Millisecond, Max: 100 * time.Millisecond}

// readModifyWrite reads the caller's todo id and hands it to existing (after
// checking If-Match), or calls missing when there is none (nil: not found),
// again and again while the write loses a race to another writer.
func (s *Service) readModifyWrite(ctx context.Context, id, ifMatch string,
	missing func() (Result, error), existing func(repo.Doc[todo.Todo]) (Result, error)) (Result, error) {
	return s.readModifyWriteFrom(ctx, id, ifMatch, nil, missing, existing)
}

// readModifyWriteFrom is readModifyWrite starting from first, the
// caller's todo as just read (nil: read it), so that an operation that has
// read the todo already does not read it again unless it loses a race.
func (s *Service) readModifyWriteFrom(ctx context.Context, id, ifMatch string, first *repo.Doc[todo.Todo],
	missing func() (Result, error), existing func(repo.Doc[todo.Todo]) (Result, error)) (Result, error) {
	for n := range writeAttempts {
		if n > 0 {
			if err := backoff.Sleep(ctx, contentionBackoff.Delay(n-1)); err != nil {
				return Result{}, todo.Wrap(todo.Unavailable, err, "the request ran out of time while other writers were changing the todo; try again")
			}
		}
		var d repo.Doc[todo.Todo]
		var err error
		if n == 0 && first != nil {
			d = *first
		} else {
			d, err = s.load(ctx, id)
		}
		var res Result
		switch {
		case todo.IsKind(err, todo.NotFound) && missing != nil:
			if ifMatch != "" {
				return Result{}, todo.Errorf(todo.PreconditionFailed, "todo %q does not exist", id)
			}
			res, err = missing()
		case err != nil:
			return Result{}, err
		default:
			if err := checkIfMatch(ifMatch, d.ETag); err != nil {
				return Result{}, err
			}
			res, err = existing(d)
		}
		if !retryable(err, ifMatch) {
			return res, err
		}
	}
	e := todo.Errorf(todo.Unavailable, "todo %q is changing too fast: %d attempts lost to concurrent writers; try again", id, writeAttempts)
	e.RetryAfter = contentionRetryAfter
	return Result{}, e
}
