package partition

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/backoff"
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
	SequenceID = "sequence"
	// sequenceBlock is how many numbers one write of the counter document
	// takes: the process hands them out itself, so a burst of one user's
	// creates writes the document once per sequenceBlock creates. Numbers
	// left when the process ends are never used; the sequence only spreads
	// todos over buckets, so gaps do no harm.
	sequenceBlock    = 64
	sequenceAttempts = 50
	// maxBlocks bounds the users whose unused numbers are kept.
	maxBlocks = 4096
)

// sequenceBackoff spaces out the writers racing for one counter document
// (other processes, as this one takes a block at a time per user).
var sequenceBackoff = backoff.Policy{Base: 2 * time.Millisecond, Max: 100 * time.Millisecond}

// Counter is the Sequencer of the synthetic scheme: it hands out per-user
// sequence numbers from a counter document, a block at a time: read it,
// write it back advanced by sequenceBlock with If-Match on its ETag (backing
// off with jitter and starting over when another writer got there first),
// then hand out the block's numbers in-process. A block is handed out from
// a random place in it, round, so that a process that creates a few todos
// and ends does not always fill the same bucket.
type Counter struct {
	c      store.Container
	mu     sync.Mutex
	blocks map[string]*block // by counter partition
}

// block is the numbers of one user taken and not yet handed out.
type block struct {
	turn        chan struct{} // held by whoever hands out or takes numbers
	start, used int64
	offset      int64
}

// NewCounter returns a counter whose documents live in c.
func NewCounter(c store.Container) *Counter {
	return &Counter{c: c, blocks: map[string]*block{}}
}

// Next takes user's next sequence number, starting at 0, from the counter
// document in the single-component partition pk (its partitionKey
// property).
func (s *Counter) Next(ctx context.Context, user string, pk store.PartitionKey) (int64, error) {
	b := s.block(pk[0])
	select {
	case b.turn <- struct{}{}:
	case <-ctx.Done():
		return 0, todo.Wrap(todo.Unavailable, ctx.Err(), "the request ended while waiting for a sequence number")
	}
	defer func() { <-b.turn }()
	if b.used == 0 || b.used == sequenceBlock {
		start, err := s.take(ctx, user, pk)
		if err != nil {
			return 0, err
		}
		b.start, b.used, b.offset = start, 0, rand.Int64N(sequenceBlock)
	}
	n := b.start + (b.offset+b.used)%sequenceBlock
	b.used++
	return n, nil
}

// block returns the numbers kept for the counter partition key, making room
// when too many users have some: dropping a block only leaves a gap.
func (s *Counter) block(key string) *block {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.blocks[key]
	if !ok {
		if len(s.blocks) >= maxBlocks {
			for k := range s.blocks {
				delete(s.blocks, k)
				break
			}
		}
		b = &block{turn: make(chan struct{}, 1)}
		s.blocks[key] = b
	}
	return b
}

// take advances user's counter document by sequenceBlock and returns the
// first number of the block taken.
func (s *Counter) take(ctx context.Context, user string, pk store.PartitionKey) (int64, error) {
	for attempt := range sequenceAttempts {
		if attempt > 0 {
			if err := backoff.Sleep(ctx, sequenceBackoff.Delay(attempt-1)); err != nil {
				return 0, todo.Wrap(todo.Unavailable, err, "the request ended while other writers were taking sequence numbers")
			}
		}
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
		d.Sequence += sequenceBlock
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
			// Lost the race to another process: back off and start over.
		default:
			return 0, err
		}
	}
	e := todo.Errorf(todo.Unavailable, "could not take a block of sequence numbers after %d attempts", sequenceAttempts)
	e.RetryAfter = time.Second
	return 0, e
}
