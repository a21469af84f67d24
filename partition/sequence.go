package partition

import (
	"context"
	"encoding/json"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// sequenceDoc is a user's counter document.
type sequenceDoc struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	UserID       string `json:"userId"`
	PartitionKey string `json:"partitionKey"`
	Sequence     int64  `json:"sequence"`
}

const (
	// SequenceID is the id of every counter document; each user's lives in a
	// partition of its own.
	SequenceID       = "sequence"
	sequenceAttempts = 50
)

// Counter is the Sequencer of the synthetic scheme: it hands out per-user
// sequence numbers from a counter document, read it, write it back
// incremented with If-Match on its ETag, and start over when another
// writer got there first.
type Counter struct {
	c store.Container
}

// NewCounter returns a counter whose documents live in c.
func NewCounter(c store.Container) *Counter { return &Counter{c: c} }

// Next takes user's next sequence number, starting at 0, from the counter
// document in the single-component partition pk (its partitionKey
// property).
func (s *Counter) Next(ctx context.Context, user string, pk store.PartitionKey) (int64, error) {
	for attempt := range sequenceAttempts {
		item, err := s.c.Read(ctx, pk, SequenceID)
		d := sequenceDoc{ID: SequenceID, Type: todo.TypeSequence, UserID: user, PartitionKey: pk[0]}
		switch {
		case todo.IsKind(err, todo.NotFound):
			item.ETag = ""
		case err != nil:
			return 0, err
		default:
			if err := json.Unmarshal(item.Body, &d); err != nil {
				return 0, todo.Wrap(todo.Internal, err, "sequence document is corrupt")
			}
		}
		taken := d.Sequence
		d.Sequence++
		body, err := json.Marshal(d)
		if err != nil {
			return 0, todo.Wrap(todo.Internal, err, "encoding the sequence document")
		}
		if item.ETag == "" {
			_, err = s.c.Create(ctx, pk, body)
		} else {
			_, err = s.c.Replace(ctx, pk, body, &store.WriteOptions{IfMatch: item.ETag})
		}
		switch {
		case err == nil:
			return taken, nil
		case todo.IsKind(err, todo.Conflict), todo.IsKind(err, todo.PreconditionFailed):
			// Lost the race; back off a little, more each time.
			select {
			case <-ctx.Done():
				return 0, todo.Wrap(todo.Unavailable, ctx.Err(), "request cancelled")
			case <-time.After(time.Duration(attempt) * time.Millisecond):
			}
		default:
			return 0, err
		}
	}
	return 0, todo.Errorf(todo.Unavailable, "could not take a sequence number after %d sequenceAttempts", sequenceAttempts)
}
