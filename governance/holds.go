package governance

import (
	"context"
	"encoding/json"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// A legal hold document, in the governance partition: its id starts with
// HoldIDPrefix, so that the holds are read by an id range.
const (
	HoldIDPrefix = "hold-"
	TypeHold     = "legalHold"
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
