package service

import (
	"context"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
)

// Patch updates the caller's existing todo id with the fields edit derives
// from its current state (a merge patch applied to it, say), under the same
// rules as an update by Put: ifMatch ("" = unconditional, "*" = must
// exist) guards it, the result is validated, and changing the category
// where the scheme keys on it is a Conflict pointing to move, as patching
// an id whose todo was moved away is one naming its new id. edit runs
// again on the fresh state when the write loses a race to another writer
// and the caller pinned no version.
func (s *Service) Patch(ctx context.Context, id, ifMatch string, edit func(todo.Todo) (todo.Fields, error)) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	res, err := s.readModifyWrite(ctx, id, ifMatch, nil, func(d repo.Doc[todo.Todo]) (Result, error) {
		f, err := edit(d.Value)
		if err != nil {
			return Result{}, err
		}
		f = normalized(f)
		if err := f.Validate(); err != nil {
			return Result{}, err
		}
		return s.update(ctx, user, d, f)
	})
	if err == nil || ifMatch != "" {
		return res, err
	}
	// A patch of an id whose todo was moved away says where it went, as a
	// PUT or DELETE does.
	return res, s.movedAway(ctx, user, id, err)
}
