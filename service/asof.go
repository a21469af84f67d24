package service

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// AsOf returns the caller's todo id as it was at the given time, from its
// audit history: the newest version written at or before then. It reads
// the history backwards from the newest version, one single-partition
// query per page, so its cost grows with the versions written since then.
// NotFound when the todo did not exist then: not created yet, deleted, or
// moved to another id (named in the error).
func (s *Service) AsOf(ctx context.Context, id string, at time.Time) (Result, error) {
	user, err := caller(ctx)
	if err != nil {
		return Result{}, err
	}
	if _, err := s.scheme.Resolve(user, id); err != nil {
		return Result{}, err
	}
	spec := repo.Spec{
		Partitions: []store.PartitionKey{{todo.EntityKey(user, id)}},
		OrderBy:    []store.Order{{Field: "version", Desc: true}},
		PageSize:   DefaultPageSize,
	}
	var res Result
	when := at.UTC().Format(time.RFC3339Nano)
	for {
		p, err := s.audit.Query(ctx, spec)
		if err != nil {
			return res, err
		}
		for _, d := range p.Items {
			rec := d.Value
			if rec.DateCreatedUTC.After(at) {
				continue
			}
			if err := json.Unmarshal(rec.Entity, &res.Todo); err != nil {
				return res, todo.Wrap(todo.Internal, err, "audit record does not decode")
			}
			switch {
			case rec.Operation == todo.OpDelete:
				return res, todo.Errorf(todo.NotFound, "todo %q was deleted at %s", id, when)
			case res.Todo.MovingTo != "":
				return res, &todo.Error{Kind: todo.NotFound, MovedTo: res.Todo.MovingTo,
					Message: fmt.Sprintf("todo %q had moved to %q at %s", id, res.Todo.MovingTo, when)}
			}
			return res, nil
		}
		if p.Continuation == "" {
			return res, todo.Errorf(todo.NotFound, "todo %q did not exist at %s", id, when)
		}
		spec.Continuation = p.Continuation
		spec.PageSize = MaxPageSize
	}
}
