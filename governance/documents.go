package governance

import (
	"encoding/json"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// The documents of the governance partition, by their type and the start
// of their ids, so that each kind is read by an id range: the legal holds,
// the governance events, and the erasure jobs, one per user, there so
// that a job and the event that closes its run are written in one batch
// and nothing an erasure does erases them.
const (
	TypeHold        = "legalHold"
	HoldIDPrefix    = "hold-"
	TypeEvent       = "governanceEvent"
	EventIDPrefix   = "event-"
	TypeErasure     = "erasure"
	ErasureIDPrefix = "erasure-"
)

func governancePartition() store.PartitionKey { return store.PartitionKey{todo.GovernanceKey} }

// mustJSON encodes a document type that always encodes.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
