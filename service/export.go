package service

import (
	"context"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// exportPageSize is the page an export reads at a time: what it holds in
// memory, whatever the size of the export.
const exportPageSize = MaxPageSize

// ExportHistory hands every audit record of the caller's todo id to emit,
// oldest first, page by page, reading at low priority so that user
// requests win; then flush, after each page. A record stored with its
// seed is handed on with it, in place of its commitments (see
// export.FormSeeds).
func (s *Service) ExportHistory(ctx context.Context, id string, emit func(todo.AuditRecord) error, flush func() error) error {
	ctx = store.WithLowPriority(ctx)
	cont := ""
	for {
		p, err := s.history(ctx, id, exportPageSize, cont, historyRead{asStored: true})
		if err != nil {
			return err
		}
		for i := range p.Items {
			if err := emit(p.Items[i].AuditRecord); err != nil {
				return err
			}
		}
		if err := flush(); err != nil {
			return err
		}
		if cont = p.Continuation; cont == "" {
			return nil
		}
	}
}

// ExportActivity is ExportHistory for an activity query: the caller's own
// (MyActivity) or, for administrators, AuditActivity; a record stored with
// its seed is handed on with it too.
func (s *Service) ExportActivity(ctx context.Context, f ActivityFilter, admin bool, emit func(todo.AuditRecord) error, flush func() error) error {
	ctx = store.WithLowPriority(ctx)
	f.PageSize, f.AsStored = exportPageSize, true
	for {
		p, err := s.Activity(ctx, f, admin)
		if err != nil {
			return err
		}
		for _, r := range p.Items {
			if err := emit(r); err != nil {
				return err
			}
		}
		if err := flush(); err != nil {
			return err
		}
		if f.Continuation = p.Continuation; f.Continuation == "" {
			return nil
		}
	}
}
