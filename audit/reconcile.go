package audit

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// Reconciler refills audit history from the version documents still
// retained in the todo container: the safety net for batches the real
// trigger dropped after its retries ran out.
type Reconciler struct {
	Todos store.Container
	Audit store.Container
	Log   *slog.Logger
}

// Result says what a reconcile pass did.
type Result struct {
	Versions int // version documents examined
	Refilled int // audit records written
	Cost     store.Cost
}

// Run examines every retained version document (a cross-partition query,
// paged) and writes the audit records that are missing.
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	var res Result
	versions := &repo.Repository[todo.Version]{C: r.Todos}
	spec := repo.Spec{
		Partitions: []store.PartitionKey{nil},
		Filters:    []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}},
		PageSize:   200,
	}
	for {
		page, err := versions.Query(ctx, spec)
		res.Cost.Add(page.Cost)
		if err != nil {
			return res, err
		}
		byEntity := map[string][]todo.Version{}
		for _, d := range page.Items {
			v := d.Value
			byEntity[todo.EntityKey(v.UserID, v.TodoID)] = append(byEntity[todo.EntityKey(v.UserID, v.TodoID)], v)
			res.Versions++
		}
		for key, vs := range byEntity {
			n, cost, err := r.refill(ctx, key, vs)
			res.Cost.Add(cost)
			res.Refilled += n
			if err != nil {
				return res, err
			}
		}
		if page.Continuation == "" {
			break
		}
		spec.Continuation = page.Continuation
	}
	if res.Refilled > 0 {
		r.Log.Warn("reconcile refilled audit history", "records", res.Refilled, "versions", res.Versions)
	}
	return res, nil
}

// refill writes the records of vs missing from one entity's history.
func (r *Reconciler) refill(ctx context.Context, key string, vs []todo.Version) (int, store.Cost, error) {
	have := map[int64]bool{}
	var cost store.Cost
	q := store.Query{PartitionKey: store.PartitionKey{key}, PageSize: store.MaxPageSize}
	for {
		page, err := r.Audit.Query(ctx, q)
		cost.Add(page.Cost)
		if err != nil {
			return 0, cost, err
		}
		for _, it := range page.Items {
			var rec struct {
				Version int64 `json:"version"`
			}
			if json.Unmarshal(it.Body, &rec) == nil {
				have[rec.Version] = true
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	var missing []json.RawMessage
	for _, v := range vs {
		if have[v.Version] {
			continue
		}
		rec, err := todo.NewAuditRecord(v)
		if err != nil {
			return 0, cost, err
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return 0, cost, err
		}
		missing = append(missing, b)
	}
	if len(missing) == 0 {
		return 0, cost, nil
	}
	return len(missing), cost, UpsertRecords(ctx, r.Audit, missing)
}
