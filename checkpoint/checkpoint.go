// Package checkpoint keeps a reader's position (a change-feed
// continuation, a reconcile watermark) in the leases container, one
// document per reader, so that a reader resumes where its last pass
// stopped, across restarts and instances.
package checkpoint

import (
	"context"
	"encoding/json"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// doc is a checkpoint document; the leases container is partitioned by id.
type doc struct {
	ID           string `json:"id"`
	Continuation string `json:"continuation"`
}

// Load returns the continuation saved under id, "" (the beginning of the
// feed) when none was saved yet.
func Load(ctx context.Context, leases store.Container, id string) (string, error) {
	item, err := leases.Read(ctx, store.PartitionKey{id}, id)
	if todo.IsKind(err, todo.NotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var d doc
	if err := json.Unmarshal(item.Body, &d); err != nil {
		return "", todo.Wrap(todo.Internal, err, "checkpoint "+id+" does not decode")
	}
	return d.Continuation, nil
}

// Save records continuation under id.
func Save(ctx context.Context, leases store.Container, id, continuation string) error {
	body, err := json.Marshal(doc{ID: id, Continuation: continuation})
	if err != nil {
		return err
	}
	_, err = leases.Upsert(ctx, store.PartitionKey{id}, body, nil)
	return err
}
