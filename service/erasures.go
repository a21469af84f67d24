package service

import (
	"context"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/governance"
)

// SelfErasureReason is the reason recorded for a user's erasure of their
// own data.
const SelfErasureReason = "the user's own request"

// RequestErasure starts, for administrators, the erasure of a user's
// personal content (see package erasure) and returns its status: the run
// under way when one is (the request is idempotent). Conflict, naming the
// hold, while a legal hold covers the user or one of the user's todos.
func (s *Service) RequestErasure(ctx context.Context, userID, reason string) (governance.Erasure, error) {
	admin, err := caller(ctx)
	if err != nil {
		return governance.Erasure{}, err
	}
	if err := todo.ValidateUserID(userID); err != nil {
		return governance.Erasure{}, err
	}
	if err := checkReason(reason); err != nil {
		return governance.Erasure{}, err
	}
	hold, err := governance.HeldBy(ctx, s.auditC, userID)
	if err == nil && hold != "" {
		err = todo.Errorf(todo.Conflict, "legal hold %s covers the data of user %q: release it before erasing", hold, userID)
	}
	if err != nil {
		return governance.Erasure{}, err
	}
	return s.startErasure(ctx, userID, reason, admin)
}

// EraseMyData starts the erasure of the caller's own personal content, as
// RequestErasure does for an administrator, but is never refused for a
// legal hold: a hold must not be disclosed to the user it covers, so the
// request is accepted and the erasure waits, touching nothing, until the
// hold is released. The user's status never names the hold; the
// administrators' does.
func (s *Service) EraseMyData(ctx context.Context) (governance.Erasure, error) {
	user, err := caller(ctx)
	if err != nil {
		return governance.Erasure{}, err
	}
	job, err := s.startErasure(ctx, user, SelfErasureReason, user)
	return job.OwnerStatus(), err
}

func (s *Service) startErasure(ctx context.Context, user, reason, actor string) (governance.Erasure, error) {
	job, err := governance.StartErasure(ctx, s.auditC, user, reason, actor, s.stamp())
	if err != nil {
		return governance.Erasure{}, err
	}
	if s.onErasure != nil {
		s.onErasure()
	}
	return job.Status(), nil
}

// Erasure reads, for administrators, the status of an erasure by id.
func (s *Service) Erasure(ctx context.Context, id string) (governance.Erasure, error) {
	if _, err := caller(ctx); err != nil {
		return governance.Erasure{}, err
	}
	if !strings.HasPrefix(id, governance.ErasureIDPrefix) || todo.ValidateID(id) != nil {
		return governance.Erasure{}, todo.Errorf(todo.NotFound, "erasure %q not found", id)
	}
	job, _, err := governance.ReadErasure(ctx, s.auditC, id)
	return job.Status(), err
}

// MyErasure reads the status of the erasure of the caller's own data.
func (s *Service) MyErasure(ctx context.Context) (governance.Erasure, error) {
	user, err := caller(ctx)
	if err != nil {
		return governance.Erasure{}, err
	}
	job, _, err := governance.ReadErasure(ctx, s.auditC, governance.ErasureID(user))
	if todo.IsKind(err, todo.NotFound) {
		return governance.Erasure{}, todo.Errorf(todo.NotFound, "no erasure of your data was requested")
	}
	return job.OwnerStatus(), err
}
