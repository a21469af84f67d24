package service

import (
	"context"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// FinishMoves completes every move that stopped after its first step (the
// process died, or the store failed, between marking the old todo and
// deleting it), so that no todo stays hidden from lists, and says how many
// it found. The handler runs it before it serves: one cross-partition query
// for marked todos, then the remaining steps of each move.
func (s *Service) FinishMoves(ctx context.Context) (int, error) {
	spec := repo.Spec{
		Partitions: []store.PartitionKey{nil},
		Filters: []store.Filter{
			{Field: "type", Op: store.Eq, Value: todo.TypeTodo},
			{Field: "movingTo", Op: store.IsDefined},
		},
		PageSize: 100,
	}
	n := 0
	for {
		p, err := s.todos.Query(ctx, spec)
		if err != nil {
			return n, err
		}
		for _, d := range p.Items {
			if _, err := s.finishMove(ctx, d.Value.UserID, d.Value, d.ETag); err != nil && !todo.IsKind(err, todo.NotFound) {
				return n, err
			}
			n++
		}
		if p.Continuation == "" {
			return n, nil
		}
		spec.Continuation = p.Continuation
	}
}

// FinishMove completes the move whose first step wrote version v, if it
// has not finished yet. Reconcile calls it for every version document it
// examines, so finishing interrupted moves costs in proportion to the
// writes since its previous run.
func (s *Service) FinishMove(ctx context.Context, v todo.Version) error {
	if v.Operation != todo.OpMove || v.Entity.MovingTo == "" {
		return nil
	}
	d, err := s.todos.GetIn(ctx, s.scheme.KeyOf(&v.Entity), v.TodoID)
	switch {
	case todo.IsKind(err, todo.NotFound):
		return nil
	case err != nil:
		return err
	case d.Value.Type != todo.TypeTodo || d.Value.MovingTo == "":
		return nil
	}
	if _, err := s.finishMove(ctx, d.Value.UserID, d.Value, d.ETag); err != nil && !todo.IsKind(err, todo.NotFound) {
		return err
	}
	return nil
}
