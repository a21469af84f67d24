package service

import (
	"context"
	"fmt"
	"time"

	"github.com/todoaudit/todo"
)

// AsOf returns the caller's todo id as it was at the given time, from its
// verified history: the newest version written at or before then. It walks
// the whole chain (see walk), one single-partition query per page of 100
// versions and a point read of the todo, so its cost grows with the
// todo's versions; a version the chain does not verify is refused with
// Conflict rather than served. NotFound when the todo did not exist then:
// not created yet, deleted, or moved to another id (named in the error).
func (s *Service) AsOf(ctx context.Context, id string, at time.Time) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Result{}, err
	}
	var chosen *verified
	v, newest, _, err := s.walk(ctx, user, id, pk, true, 0, nil, func(x *verified) {
		if !x.Record.DateCreatedUTC.After(at) {
			chosen = x
		}
	})
	if err != nil {
		return Result{}, err
	}
	// A version at or after the break is not served; nor is the one just
	// before it, when the walk stopped at the break: the broken version's
	// time cannot be trusted, so which version was current then is not
	// known.
	if !v.Verified && (chosen == nil || chosen == newest || chosen.Record.Version >= v.BrokenAt) {
		n := v.BrokenAt
		if chosen != nil && chosen.Record.Version > n {
			n = chosen.Record.Version
		}
		return Result{}, unverified(id, n, v)
	}
	when := at.UTC().Format(time.RFC3339Nano)
	var res Result
	switch {
	case chosen == nil:
		return res, todo.Errorf(todo.NotFound, "todo %q did not exist at %s", id, when)
	case chosen.Record.Operation == todo.OpDelete:
		return res, todo.Errorf(todo.NotFound, "todo %q was deleted at %s", id, when)
	case chosen.Audited.Entity.MovingTo != "":
		return res, &todo.Error{Kind: todo.NotFound, MovedTo: chosen.Audited.Entity.MovingTo,
			Message: fmt.Sprintf("todo %q had moved to %q at %s", id, chosen.Audited.Entity.MovingTo, when)}
	}
	res.Todo = chosen.Audited.Entity
	return res, nil
}
