package service

// Moves. A move gives a todo a new id in another logical partition, and no
// transaction spans two partitions, so it is three idempotent steps: mark
// the old todo as moving, create the new todo, delete the old one. A move
// that stopped after its first step is finished by whoever meets its mark
// next: a retried move, reconcile (FinishVersionMove), or the sweeper,
// which reads the todo container's change feed from where its previous
// pass stopped, so a pass costs in proportion to the writes since then.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// Move gives the caller's todo a new category where the scheme keys on it:
// a new id in another logical partition. No transaction spans two
// partitions, so the move is three idempotent steps: mark the old todo as
// moving (its final version, hidden from then on), create the new todo
// (version 1, operation move), delete the old one. A retried move resumes
// from the mark, so an interrupted move is never lost.
func (s *Service) Move(ctx context.Context, id, category, ifMatch string) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	if !s.scheme.KeysOnCategory() {
		return Result{}, todo.Errorf(todo.Conflict, "the %s scheme does not key on category: change it with PUT /api/todos/%s", s.scheme.Name(), id)
	}
	if err := todo.ValidateCategory(category); err != nil {
		return Result{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Result{}, err
	}
	// A move interrupted after its first step resumes where it stopped.
	d, err := s.todos.GetIn(ctx, pk, id)
	if err == nil && d.Value.Type == todo.TypeTodo && d.Value.UserID == user && d.Value.MovingTo != "" {
		return s.finishMove(ctx, user, d.Value, d.ETag)
	}
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		return Result{}, err
	}
	// Step one: mark the todo as moving, as its final version; from the
	// document just read, and again from a fresh read only when another
	// writer got there first.
	mark := func(d repo.Doc[todo.Todo]) (Result, error) {
		old := d.Value
		if old.Category == category {
			return Result{}, todo.Errorf(todo.Conflict, "todo %q is already in category %q", id, category)
		}
		key, err := s.scheme.NewKey(ctx, user, category)
		if err != nil {
			return Result{}, err
		}
		old.MovingTo = key.ID
		s.advance(&old, todo.OpMove, user)
		etag, err := s.write(ctx, &old, store.BatchReplace, d.ETag)
		return Result{Todo: old, ETag: etag}, err
	}
	var first *repo.Doc[todo.Todo]
	if err == nil && d.Value.Type == todo.TypeTodo && d.Value.UserID == user {
		first = &d
	}
	marked, err := s.readModifyWriteFrom(ctx, id, ifMatch, first, nil, mark)
	if err != nil {
		// A retried move finds the id moved away already.
		return Result{}, s.movedAway(ctx, user, id, err)
	}
	return s.finishMove(ctx, user, marked.Todo, marked.ETag)
}

// finishMove creates the moved todo (if a previous attempt has not) and
// deletes the marked original. It runs to the end even when the caller
// goes away, so that a move is not left half done.
func (s *Service) finishMove(ctx context.Context, user string, old todo.Todo, etag string) (Result, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	newPK, err := s.scheme.Resolve(user, old.MovingTo)
	if err != nil {
		return Result{}, err
	}
	t := old
	t.ID, t.MovingTo, t.MovedFrom, t.Version = old.MovingTo, "", old.ID, 1
	t.Category = newPK[len(newPK)-1]
	t.LastOperation = todo.OpMove
	var res Result
	res.Todo, res.Created = t, true
	res.ETag, err = s.write(ctx, &t, store.BatchCreate, "")
	res.Todo = t
	if todo.IsKind(err, todo.Conflict) {
		// An earlier attempt created it; it may have changed, or even been
		// deleted, since.
		d, gerr := s.todos.GetIn(ctx, newPK, t.ID)
		switch {
		case gerr == nil:
			res.Todo, res.ETag, err = d.Value, d.ETag, nil
		case todo.IsKind(gerr, todo.NotFound):
			err = todo.Errorf(todo.NotFound, "todo %q was moved to %q, which no longer exists", old.ID, t.ID)
		default:
			return res, gerr
		}
	}
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		return res, err
	}
	derr := s.todos.Remove(ctx, s.scheme.KeyOf(&old), old.ID, etag)
	if derr != nil && !todo.IsKind(derr, todo.NotFound) {
		return res, derr
	}
	return res, err
}

// FinishMove completes the move todo t (as stored, with its ETag) was
// marked for, if any: the remaining steps of a move that stopped after its
// first one, so that the todo is no longer hidden. It is idempotent, and
// safe while the move's own request is still running. Only store failures
// are errors: a document that cannot be finished (its move target is not a
// valid id, or it changed since it was read) is left to its next reader.
func (s *Service) FinishMove(ctx context.Context, t todo.Todo, etag string) error {
	if t.Type != todo.TypeTodo || t.MovingTo == "" {
		return nil
	}
	_, err := s.finishMove(ctx, t.UserID, t, etag)
	switch todo.KindOf(err) {
	case todo.NotFound, todo.Invalid, todo.Conflict, todo.PreconditionFailed:
		return nil
	}
	return err
}

// FinishVersionMove completes the move whose first step wrote version v,
// if it has not finished yet. Reconcile calls it for every version document
// it examines.
func (s *Service) FinishVersionMove(ctx context.Context, v todo.Version) error {
	if v.Operation != todo.OpMove || v.Entity.MovingTo == "" {
		return nil
	}
	d, err := s.todos.GetIn(ctx, s.scheme.KeyOf(&v.Entity), v.TodoID)
	if todo.IsKind(err, todo.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.FinishMove(ctx, d.Value, d.ETag)
}

// sweepPage is how many changed documents a sweep reads per request.
const sweepPage = 1000

// MoveSweeper hands every todo it finds marked as moving to Finish.
type MoveSweeper struct {
	Todos  store.Container
	Leases store.Container // holds the sweeper's checkpoint
	// Finish completes the move the todo (as read, with its ETag) was
	// marked for; it must be idempotent, as the move may be running still.
	Finish func(ctx context.Context, t todo.Todo, etag string) error
}

// Run reads the changes since the previous pass, finishes the marked
// moves among them, and says how many it found.
func (s *MoveSweeper) Run(ctx context.Context) (int, error) {
	id := "moves-" + s.Todos.Spec().Name
	cont, err := store.LoadCheckpoint(ctx, s.Leases, id)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		b, err := s.Todos.ChangeFeed(ctx, cont, sweepPage)
		if err != nil {
			return n, err
		}
		if len(b.Items) == 0 || b.Continuation == cont {
			return n, nil
		}
		for _, it := range b.Items {
			var t todo.Todo
			if json.Unmarshal(it.Body, &t) != nil || t.Type != todo.TypeTodo || t.MovingTo == "" {
				continue
			}
			if err := s.Finish(ctx, t, it.ETag); err != nil {
				return n, err
			}
			n++
		}
		cont = b.Continuation
		if err := store.SaveCheckpoint(ctx, s.Leases, id, cont); err != nil {
			return n, err
		}
	}
}
