package store

import (
	"context"
	"encoding/json"

	"github.com/todoaudit/todo"
)

// checkpointDoc keeps a reader's position (a change-feed continuation, a
// reconcile watermark) in the leases container, one document per reader
// (the container is partitioned by id), so that a reader resumes where its
// last pass stopped, across restarts and instances.
type checkpointDoc struct {
	ID           string `json:"id"`
	Continuation string `json:"continuation"`
}

// LoadCheckpoint returns the continuation saved under id, "" (the beginning of the
// feed) when none was saved yet.
func LoadCheckpoint(ctx context.Context, leases Container, id string) (string, error) {
	item, err := leases.Read(ctx, PartitionKey{id}, id)
	if todo.IsKind(err, todo.NotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var d checkpointDoc
	if err := json.Unmarshal(item.Body, &d); err != nil {
		return "", todo.Wrap(todo.Internal, err, "checkpoint "+id+" does not decode")
	}
	return d.Continuation, nil
}

// SaveCheckpoint records continuation under id.
func SaveCheckpoint(ctx context.Context, leases Container, id, continuation string) error {
	u, err := CheckpointUpsert(leases.Spec().Name, id, continuation)
	if err != nil {
		return err
	}
	_, err = leases.Upsert(ctx, u.PartitionKey, u.Doc, nil)
	return err
}

// CheckpointUpsert is the write SaveCheckpoint makes, for a caller that
// saves the checkpoint in the same transaction as what it covers (see
// UpsertAtomically).
func CheckpointUpsert(leases, id, continuation string) (Upsert, error) {
	body, err := json.Marshal(checkpointDoc{ID: id, Continuation: continuation})
	if err != nil {
		return Upsert{}, err
	}
	return Upsert{Container: leases, PartitionKey: PartitionKey{id}, Doc: body}, nil
}
