package service

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/store"
)

// MaxReasonBytes bounds the reason of a hold or a release.
const MaxReasonBytes = 1024

func checkReason(reason string) error { return todo.ValidateText("reason", reason, MaxReasonBytes) }

// CreateHold places a legal hold on every audit record of a user's todos
// (userID) or of one todo (todoID), for administrators: the hold and its
// governance event are one transactional batch.
func (s *Service) CreateHold(ctx context.Context, userID, todoID, reason string) (governance.Hold, error) {
	admin, err := caller(ctx)
	if err != nil {
		return governance.Hold{}, err
	}
	switch {
	case (userID == "") == (todoID == ""):
		return governance.Hold{}, todo.Errorf(todo.Invalid, "a hold names exactly one of userId and todoId")
	case userID != "":
		err = todo.ValidateUserID(userID)
	default:
		err = todo.ValidateID(todoID)
	}
	if err != nil {
		return governance.Hold{}, err
	}
	if err := checkReason(reason); err != nil {
		return governance.Hold{}, err
	}
	at := s.stamp()
	h := governance.Hold{ID: governance.HoldIDPrefix + uuid.NewString(), EntityKey: todo.GovernanceKey, Type: governance.TypeHold,
		UserID: userID, TodoID: todoID, Reason: reason, CreatedBy: admin, CreatedAt: at}
	ev := governance.NewEvent(governance.Event{Action: "hold", Actor: admin, Reason: reason, HoldID: h.ID, UserID: userID, TodoID: todoID}, at)
	return h, s.governance(ctx, store.Op{Kind: store.BatchCreate, Doc: mustJSON(h)}, ev)
}

// Holds lists the legal holds.
func (s *Service) Holds(ctx context.Context) ([]governance.Hold, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	return governance.Holds(ctx, s.auditC)
}

// ReleaseHold removes a legal hold, with the reason for the release (the
// hold's own when empty), in one batch with its governance event.
func (s *Service) ReleaseHold(ctx context.Context, id, reason string) error {
	admin, err := caller(ctx)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(id, governance.HoldIDPrefix) || todo.ValidateID(id) != nil {
		return todo.Errorf(todo.NotFound, "legal hold %q not found", id)
	}
	it, err := s.auditC.Read(ctx, store.PartitionKey{todo.GovernanceKey}, id)
	if todo.IsKind(err, todo.NotFound) {
		return todo.Errorf(todo.NotFound, "legal hold %q not found", id)
	}
	if err != nil {
		return err
	}
	var h governance.Hold
	if err := json.Unmarshal(it.Body, &h); err != nil {
		return todo.Wrap(todo.Internal, err, "legal hold "+id+" does not decode")
	}
	if reason == "" {
		reason = h.Reason
	} else if err := checkReason(reason); err != nil {
		return err
	}
	ev := governance.NewEvent(governance.Event{Action: "release", Actor: admin, Reason: reason, HoldID: id, UserID: h.UserID, TodoID: h.TodoID}, s.stamp())
	if err := s.governance(ctx, store.Op{Kind: store.BatchDelete, ID: id, IfMatch: it.ETag}, ev); err != nil {
		return err
	}
	// An erasure the hold made wait goes on now.
	if s.onErasure != nil {
		s.onErasure()
	}
	return nil
}

// governance writes op and its event in one batch in the governance
// partition.
func (s *Service) governance(ctx context.Context, op store.Op, ev governance.Event) error {
	_, err := s.auditC.Batch(ctx, store.PartitionKey{todo.GovernanceKey}, []store.Op{op, {Kind: store.BatchCreate, Doc: mustJSON(ev)}})
	return err
}

// mustJSON encodes a document type that always encodes.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
