package audit

import (
	"context"
	"encoding/json"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo/store"
)

// batchLen is how many of ops fit one transactional batch: at most
// store.MaxBatchOps operations and store.MaxBatchBytes of documents.
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

// UpsertRecords writes audit records (JSON objects with an entityKey), one
// transactional batch per partition, as the output binding would.
func UpsertRecords(ctx context.Context, audit store.Container, recs []json.RawMessage) error {
	byKey := map[string][]store.Op{}
	var order []string
	for _, r := range recs {
		var head struct {
			EntityKey string `json:"entityKey"`
		}
		if err := json.Unmarshal(r, &head); err != nil || head.EntityKey == "" {
			return fmt.Errorf("audit record without entityKey: %s", r)
		}
		if _, ok := byKey[head.EntityKey]; !ok {
			order = append(order, head.EntityKey)
		}
		byKey[head.EntityKey] = append(byKey[head.EntityKey], store.Op{Kind: store.BatchUpsert, Doc: r})
	}
	// One batch per partition, sent concurrently: Cosmos DB serves them in
	// parallel, and the embedded store folds them into shared commits.
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for _, key := range order {
		ops := byKey[key]
		g.Go(func() error {
			for len(ops) > 0 {
				n := batchLen(ops)
				if _, err := audit.Batch(ctx, store.PartitionKey{key}, ops[:n]); err != nil {
					return err
				}
				ops = ops[n:]
			}
			return nil
		})
	}
	return g.Wait()
}
