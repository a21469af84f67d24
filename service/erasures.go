package service

import (
	"context"

	"github.com/todoaudit/todo/governance"
)

// RequestErasure starts, for administrators, the erasure of a user's
// personal content and returns its status (see governance.RequestErasure):
// Conflict while a legal hold covers the user's data.
func (s *Service) RequestErasure(ctx context.Context, userID, reason string) (governance.Erasure, error) {
	admin, err := caller(ctx)
	if err != nil {
		return governance.Erasure{}, err
	}
	job, err := governance.RequestErasure(ctx, s.auditC, admin, userID, reason, s.stamp())
	if err != nil {
		return governance.Erasure{}, err
	}
	return s.started(job), nil
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
	job, err := governance.StartErasure(ctx, s.auditC, user, governance.SelfErasureReason, user, s.stamp())
	if err != nil {
		return governance.Erasure{}, err
	}
	return s.started(job).OwnerStatus(), nil
}

// started tells the erasure runner of a job started and returns its
// status.
func (s *Service) started(job governance.Erasure) governance.Erasure {
	if s.onErasure != nil {
		s.onErasure()
	}
	return job.Status()
}

// Erasure reads, for administrators, the status of an erasure by id.
func (s *Service) Erasure(ctx context.Context, id string) (governance.Erasure, error) {
	if _, err := caller(ctx); err != nil {
		return governance.Erasure{}, err
	}
	return governance.ErasureStatus(ctx, s.auditC, id)
}

// MyErasure reads the status of the erasure of the caller's own data.
func (s *Service) MyErasure(ctx context.Context) (governance.Erasure, error) {
	user, err := caller(ctx)
	if err != nil {
		return governance.Erasure{}, err
	}
	return governance.OwnErasure(ctx, s.auditC, user)
}
