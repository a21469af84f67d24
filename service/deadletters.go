package service

import (
	"context"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// DeadLetterPage is one page of dead letters, newest first.
type DeadLetterPage struct {
	Items        []todo.DeadLetter
	Continuation string
}

// DeadLetters lists the change-feed documents the audit could not record,
// newest first: one single-partition query, for operators.
func (s *Service) DeadLetters(ctx context.Context, pageSize int, continuation string) (DeadLetterPage, error) {
	if pageSize == 0 {
		pageSize = DefaultPageSize
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return DeadLetterPage{}, todo.Errorf(todo.Invalid, "pageSize must be between 1 and %d", MaxPageSize)
	}
	p, err := s.deadLetters.Query(ctx, repo.Spec{
		Partitions:   []store.PartitionKey{{todo.DeadLetterKey}},
		OrderBy:      []store.Order{{Field: "at", Desc: true}},
		PageSize:     pageSize,
		Continuation: continuation,
	})
	page := DeadLetterPage{Continuation: p.Continuation}
	for _, d := range p.Items {
		page.Items = append(page.Items, d.Value)
	}
	return page, err
}
