package audit

import (
	"context"
	"encoding/json"

	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Upserts encodes an outcome's records and dead letters as documents of
// the audit container (named container), each under its partition key.
func (o Outcome) Upserts(container string) ([]store.Upsert, error) {
	ups := make([]store.Upsert, 0, len(o.Records)+len(o.DeadLetters))
	for _, r := range o.Records {
		b, err := todo.MarshalJSON(r)
		if err != nil {
			return nil, err
		}
		ups = append(ups, store.Upsert{Container: container, PartitionKey: store.PartitionKey{r.EntityKey}, Doc: b})
	}
	for _, d := range o.DeadLetters {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		ups = append(ups, store.Upsert{Container: container, PartitionKey: store.PartitionKey{d.EntityKey}, Doc: b})
	}
	return ups, nil
}

// batchLen is how many of ops fit one transactional batch: at most
// store.MaxBatchOps operations and store.MaxBatchBytes of documents, and
// always at least one.
func batchLen(ops []store.Op) int {
	n, size := 0, 0
	for n < len(ops) && n < store.MaxBatchOps {
		size += len(ops[n].Doc)
		if n > 0 && size > store.MaxBatchBytes {
			break
		}
		n++
	}
	return n
}

// Write upserts an outcome's records and dead letters into the audit
// container: in transactional batches of one partition each, bounded in
// operations and bytes, sent concurrently (Cosmos DB serves them in
// parallel; the embedded store folds them into shared commits).
func (o Outcome) Write(ctx context.Context, audit store.Container) error {
	ups, err := o.Upserts(audit.Spec().Name)
	if err != nil {
		return err
	}
	return UpsertEach(ctx, audit, ups)
}

// UpsertEach writes upserts of one container in transactional batches of
// one partition each, as Write does.
func UpsertEach(ctx context.Context, c store.Container, ups []store.Upsert) error {
	byKey := map[string][]store.Op{}
	var order []string
	for _, u := range ups {
		key := u.PartitionKey[0]
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = append(byKey[key], store.Op{Kind: store.BatchUpsert, Doc: u.Doc})
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for _, key := range order {
		ops := byKey[key]
		g.Go(func() error {
			for len(ops) > 0 {
				n := batchLen(ops)
				if _, err := c.Batch(ctx, store.PartitionKey{key}, ops[:n]); err != nil {
					return err
				}
				ops = ops[n:]
			}
			return nil
		})
	}
	return g.Wait()
}
