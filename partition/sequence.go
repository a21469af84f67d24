package partition

import (
	"context"
	"encoding/json"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// sequenceDoc is a user's sequence document, kept in the user's bucket 0.
type sequenceDoc struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	UserID       string `json:"userId"`
	PartitionKey string `json:"partitionKey"`
	Sequence     int64  `json:"sequence"`
}

const (
	sequenceID       = "sequence"
	sequenceAttempts = 50
)

// next takes the user's next sequence number and returns its bucket: read
// the sequence document, write it back incremented with If-Match on its
// ETag, and start over when another writer got there first (seed 003).
func (s *synthetic) next(ctx context.Context, user string) (int, store.Cost, error) {
	pk := store.PartitionKey{Bucket(user, 0)}
	var total store.Cost
	for attempt := range sequenceAttempts {
		item, cost, err := s.c.Read(ctx, pk, sequenceID)
		total.Add(cost)
		doc := sequenceDoc{ID: sequenceID, Type: todo.TypeSequence, UserID: user, PartitionKey: pk[0]}
		switch {
		case todo.IsKind(err, todo.NotFound):
			item.ETag = ""
		case err != nil:
			return 0, total, err
		default:
			if err := json.Unmarshal(item.Body, &doc); err != nil {
				return 0, total, todo.Wrap(todo.Internal, err, "sequence document is corrupt")
			}
		}
		taken := doc.Sequence
		doc.Sequence++
		body, err := json.Marshal(doc)
		if err != nil {
			return 0, total, todo.Wrap(todo.Internal, err, "encoding the sequence document")
		}
		if item.ETag == "" {
			_, cost, err = s.c.Create(ctx, pk, body)
		} else {
			_, cost, err = s.c.Replace(ctx, pk, body, &store.WriteOptions{IfMatch: item.ETag})
		}
		total.Add(cost)
		switch {
		case err == nil:
			return int(taken % int64(s.buckets)), total, nil
		case todo.IsKind(err, todo.Conflict), todo.IsKind(err, todo.PreconditionFailed):
			// Lost the race; back off a little, more each time.
			select {
			case <-ctx.Done():
				return 0, total, todo.Wrap(todo.Unavailable, ctx.Err(), "request cancelled")
			case <-time.After(time.Duration(attempt) * time.Millisecond):
			}
		default:
			return 0, total, err
		}
	}
	return 0, total, todo.Errorf(todo.Unavailable, "could not take a sequence number after %d attempts", sequenceAttempts)
}
