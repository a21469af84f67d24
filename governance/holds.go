package governance

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Hold is a legal hold: while it exists, the purge leaves every audit
// record of the user's todos (UserID) or of one todo (TodoID) alone.
type Hold struct {
	ID        string    `json:"id"`
	EntityKey string    `json:"entityKey"`
	Type      string    `json:"type"`
	UserID    string    `json:"userId,omitempty"`
	TodoID    string    `json:"todoId,omitempty"`
	Reason    string    `json:"reason"`
	CreatedBy string    `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
}

// Covers reports whether h holds the records of todoID owned by owner.
func (h *Hold) Covers(owner, todoID string) bool {
	return (h.UserID != "" && h.UserID == owner) || (h.TodoID != "" && h.TodoID == todoID)
}

// MaxReasonBytes bounds the reason of a hold, a release or an erasure.
const MaxReasonBytes = 1024

func checkReason(reason string) error { return todo.ValidateText("reason", reason, MaxReasonBytes) }

// CreateHold places a legal hold, asked for by actor at at, on every
// audit record of a user's todos (userID) or of one todo (todoID): the
// hold and its governance event are one transactional batch.
func CreateHold(ctx context.Context, audit store.Container, actor, userID, todoID, reason string, at time.Time) (Hold, error) {
	var err error
	switch {
	case (userID == "") == (todoID == ""):
		return Hold{}, todo.Errorf(todo.Invalid, "a hold names exactly one of userId and todoId")
	case userID != "":
		err = todo.ValidateUserID(userID)
	default:
		err = todo.ValidateID(todoID)
	}
	if err != nil {
		return Hold{}, err
	}
	if err := checkReason(reason); err != nil {
		return Hold{}, err
	}
	h := Hold{ID: HoldIDPrefix + uuid.NewString(), EntityKey: todo.GovernanceKey, Type: TypeHold,
		UserID: userID, TodoID: todoID, Reason: reason, CreatedBy: actor, CreatedAt: at}
	ev := NewEvent(Event{Action: "hold", Actor: actor, Reason: reason, HoldID: h.ID, UserID: userID, TodoID: todoID}, at)
	return h, writeWithEvent(ctx, audit, store.Op{Kind: store.BatchCreate, Doc: mustJSON(h)}, ev)
}

// ReleaseHold removes a legal hold, released by actor at at with reason
// (the hold's own when empty), in one batch with its governance event.
func ReleaseHold(ctx context.Context, audit store.Container, actor, id, reason string, at time.Time) error {
	if !strings.HasPrefix(id, HoldIDPrefix) || todo.ValidateID(id) != nil {
		return todo.Errorf(todo.NotFound, "legal hold %q not found", id)
	}
	it, err := audit.Read(ctx, governancePartition(), id)
	if todo.IsKind(err, todo.NotFound) {
		return todo.Errorf(todo.NotFound, "legal hold %q not found", id)
	}
	if err != nil {
		return err
	}
	var h Hold
	if err := json.Unmarshal(it.Body, &h); err != nil {
		return todo.Wrap(todo.Internal, err, "legal hold "+id+" does not decode")
	}
	if reason == "" {
		reason = h.Reason
	} else if err := checkReason(reason); err != nil {
		return err
	}
	ev := NewEvent(Event{Action: "release", Actor: actor, Reason: reason, HoldID: id, UserID: h.UserID, TodoID: h.TodoID}, at)
	return writeWithEvent(ctx, audit, store.Op{Kind: store.BatchDelete, ID: id, IfMatch: it.ETag}, ev)
}

// Holds reads every legal hold: one single-partition query by id range.
func Holds(ctx context.Context, audit store.Container) ([]Hold, error) {
	var out []Hold
	q := store.Query{
		PartitionKey: store.PartitionKey{todo.GovernanceKey},
		Filters:      store.IDPrefix(HoldIDPrefix),
		PageSize:     store.MaxPageSize,
	}
	for {
		page, err := audit.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			var h Hold
			if err := json.Unmarshal(it.Body, &h); err != nil {
				return nil, todo.Wrap(todo.Internal, err, "legal hold "+it.ID+" does not decode")
			}
			out = append(out, h)
		}
		if q.Continuation = page.Continuation; q.Continuation == "" {
			return out, nil
		}
	}
}

// HeldBy names a legal hold that covers user or one of user's todos ("" for
// none): a hold of a todo id covers it when the user has audit records
// of that id.
func HeldBy(ctx context.Context, audit store.Container, user string) (string, error) {
	holds, err := Holds(ctx, audit)
	if err != nil {
		return "", err
	}
	for _, h := range holds {
		if h.UserID == user {
			return h.ID, nil
		}
		if h.TodoID == "" {
			continue
		}
		p, err := audit.Query(ctx, store.Query{PartitionKey: store.PartitionKey{todo.EntityKey(user, h.TodoID)}, PageSize: 1})
		if err != nil {
			return "", err
		}
		if len(p.Items) > 0 {
			return h.ID, nil
		}
	}
	return "", nil
}
