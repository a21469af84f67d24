package bolt

import (
	"context"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo/store"
)

var _ store.Relaying = (*Store)(nil)

// RelayBatches has r add its writes to the transaction of every batch
// written into the named container (nil stops it): one commit for a write
// and what follows from it.
func (s *Store) RelayBatches(name string, r store.Relay) error {
	sc, err := s.Container(context.Background(), name)
	if err != nil {
		return err
	}
	c := sc.(*container)
	if r == nil {
		c.relay.Store(nil)
		return nil
	}
	c.relay.Store(&relay{r})
	return nil
}

// relayed are a relay's writes for one batch, checked and encoded outside
// the commit lock as the batch's own are.
type relayed struct {
	upserts  []upsert
	retire   []int
	reserved time.Time
}

// relayed asks the container's relay for the writes that follow from a
// batch of ops, prepared as preps, and marks the creates it retires so
// that apply only takes their ids. It returns nil when there is no relay,
// when the relay leaves the batch to the change feed, or when its writes
// cannot be written (logged): the batch is then written alone, and its
// documents reach their destination through the feed, as without a relay.
func (c *container) relayed(ctx context.Context, pk store.PartitionKey, ops []store.Op, preps []prepared) *relayed {
	r := c.relay.Load()
	if r == nil {
		return nil
	}
	rel, ok := r.Relay.Relay(ctx, pk, ops)
	if !ok {
		return nil
	}
	for _, i := range rel.Retire {
		if i < 0 || i >= len(preps) || preps[i].kind == store.BatchDelete || preps[i].kind == store.BatchRead {
			c.s.log.Error("embedded store: a relay named an operation it cannot retire; the batch is left to the change feed",
				"container", c.spec.Name, "operation", i)
			return nil
		}
	}
	ups, _, err := c.s.prepareUpserts(ctx, rel.Upserts)
	if err != nil {
		c.s.log.Error("embedded store: a relay's writes cannot be written; the batch is left to the change feed",
			"container", c.spec.Name, "error", err.Error())
		return nil
	}
	out := &relayed{upserts: ups, reserved: rel.Reserved}
	for _, i := range rel.Retire {
		if preps[i].kind == store.BatchCreate {
			// Retired as soon as written: never written at all.
			preps[i].reserved = rel.Reserved
			continue
		}
		out.retire = append(out.retire, i)
	}
	return out
}

// write writes the relay's writes in tx, after the batch's own operations
// (preps, with their results) were applied: its upserts, then the
// retirement of the operations it named, at the ETags they were just
// written with. A failure leaves the transaction half-written, so it is
// rolled back, the batch with it.
func (r *relayed) write(tx *bbolt.Tx, c *container, preps []prepared, results []store.OpResult) error {
	if r == nil {
		return nil
	}
	if err := writeUpserts(tx, r.upserts); err != nil {
		return err
	}
	for _, i := range r.retire {
		if err := c.retire(tx, preps[i].key, results[i].ETag, r.reserved); err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
	}
	return nil
}
