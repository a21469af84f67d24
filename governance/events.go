package governance

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Event records one hold, release, purge run or erasure in the audit.
// Erasures never touch the governance partition, so these events are
// never erased.
type Event struct {
	ID        string    `json:"id"`
	EntityKey string    `json:"entityKey"`
	Type      string    `json:"type"`
	Action    string    `json:"action"` // hold, release, purge or erase
	Actor     string    `json:"actor"`
	Reason    string    `json:"reason"`
	At        string    `json:"at"` // todo.TimeKey, sorts as time
	HoldID    string    `json:"holdId,omitempty"`
	UserID    string    `json:"userId,omitempty"`
	TodoID    string    `json:"todoId,omitempty"`
	Purged    int       `json:"purged,omitempty"`
	Held      int       `json:"held,omitempty"`
	Cutoff    time.Time `json:"cutoff,omitzero"`
	// ErasureID, Erased and FirstEncoding describe an erasure run: its
	// job, the documents that hold erased fields, and those of the first
	// chain encoding it had to leave.
	ErasureID     string         `json:"erasureId,omitempty"`
	Erased        *ErasureCounts `json:"erased,omitempty"`
	FirstEncoding *ErasureCounts `json:"firstEncoding,omitempty"`
}

// NewEvent completes a governance event's id, partition, type and time.
func NewEvent(ev Event, at time.Time) Event {
	ev.ID = EventIDPrefix + todo.TimeKey(at) + "-" + uuid.NewString()
	ev.EntityKey, ev.Type, ev.At = todo.GovernanceKey, TypeEvent, todo.TimeKey(at)
	return ev
}

// WriteEvent records a governance event on its own.
func WriteEvent(ctx context.Context, audit store.Container, ev Event, at time.Time) error {
	b, err := json.Marshal(NewEvent(ev, at))
	if err != nil {
		return err
	}
	_, err = audit.Create(ctx, store.PartitionKey{todo.GovernanceKey}, b)
	return err
}

// writeWithEvent writes op and its event in one batch in the governance
// partition.
func writeWithEvent(ctx context.Context, audit store.Container, op store.Op, ev Event) error {
	_, err := audit.Batch(ctx, governancePartition(), []store.Op{op, {Kind: store.BatchCreate, Doc: mustJSON(ev)}})
	return err
}
