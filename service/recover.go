package service

import (
	"context"

	"github.com/todoaudit/todo"
)

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
