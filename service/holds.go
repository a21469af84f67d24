package service

import (
	"context"

	"github.com/todoaudit/todo/governance"
)

// CreateHold places a legal hold on every audit record of a user's todos
// (userID) or of one todo (todoID), for administrators (see
// governance.CreateHold).
func (s *Service) CreateHold(ctx context.Context, userID, todoID, reason string) (governance.Hold, error) {
	admin, err := caller(ctx)
	if err != nil {
		return governance.Hold{}, err
	}
	return governance.CreateHold(ctx, s.auditC, admin, userID, todoID, reason, s.stamp())
}

// Holds lists the legal holds.
func (s *Service) Holds(ctx context.Context) ([]governance.Hold, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	return governance.Holds(ctx, s.auditC)
}

// ReleaseHold removes a legal hold, with the reason for the release (the
// hold's own when empty), and lets an erasure it made wait go on.
func (s *Service) ReleaseHold(ctx context.Context, id, reason string) error {
	admin, err := caller(ctx)
	if err != nil {
		return err
	}
	if err := governance.ReleaseHold(ctx, s.auditC, admin, id, reason, s.stamp()); err != nil {
		return err
	}
	if s.onErasure != nil {
		s.onErasure()
	}
	return nil
}
