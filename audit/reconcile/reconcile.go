// Package reconcile refills audit history from the version documents still
// retained in the todo container: the safety net for batches the real
// trigger dropped after its retries ran out. Handler serves it as the
// Reconcile timer function.
package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/repo"
	"github.com/todoaudit/todo/store"
)

// Reconciler refills one audit container from one todo container.
type Reconciler struct {
	Todos store.Container
	Audit store.Container
	Log   *slog.Logger
	// FinishMove, when set, is called with every version document a run
	// examines, so that a move interrupted after its first step (the
	// version that marks the old todo) is completed by the next run.
	FinishMove func(context.Context, todo.Version) error
}

// Result says what a reconcile pass did.
type Result struct {
	Versions int // version documents examined
	Refilled int // audit records written
}

// Run examines every retained version document (a cross-partition query,
// paged) and writes the audit records that are missing.
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	var res Result
	versions := repo.New[todo.Version](r.Todos, nil)
	spec := repo.Spec{
		Partitions: []store.PartitionKey{nil},
		Filters:    []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}},
		PageSize:   200,
	}
	for {
		page, err := versions.Query(ctx, spec)
		if err != nil {
			return res, err
		}
		byEntity := map[string][]todo.Version{}
		for _, d := range page.Items {
			v := d.Value
			if audit.CheckVersion(v) != nil {
				continue // the trigger dead-letters it
			}
			byEntity[todo.EntityKey(v.UserID, v.TodoID)] = append(byEntity[todo.EntityKey(v.UserID, v.TodoID)], v)
			res.Versions++
			if r.FinishMove != nil {
				if err := r.FinishMove(ctx, v); err != nil {
					return res, err
				}
			}
		}
		for key, vs := range byEntity {
			n, err := r.refill(ctx, key, vs)
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
func (r *Reconciler) refill(ctx context.Context, key string, vs []todo.Version) (int, error) {
	have := map[int64]bool{}
	q := store.Query{PartitionKey: store.PartitionKey{key}, PageSize: store.MaxPageSize}
	for {
		page, err := r.Audit.Query(ctx, q)
		if err != nil {
			return 0, err
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
			return 0, err
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return 0, err
		}
		missing = append(missing, b)
	}
	if len(missing) == 0 {
		return 0, nil
	}
	return len(missing), audit.UpsertRecords(ctx, r.Audit, missing)
}

// Handler serves the Reconcile timer function in payload mode: one pass
// per invocation, its figures in the invocation's logs.
func Handler(rec *Reconciler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := azfunc.DecodeRequest(r.Body); err != nil {
			log.Error("reconcile invocation refused", "error", err.Error())
			azfunc.WriteFailure(w, err)
			return
		}
		ctx, m := store.WithMeter(r.Context())
		res, err := rec.Run(ctx)
		if err != nil {
			log.ErrorContext(r.Context(), "reconcile failed", "error", err.Error(), "kind", todo.KindOf(err).String())
			problem.Write(w, err)
			return
		}
		azfunc.WriteResponse(w, azfunc.InvokeResponse{Logs: []string{
			fmt.Sprintf("reconcile: %d version documents, %d audit records refilled, %.1f RU", res.Versions, res.Refilled, m.Cost().Charge),
		}})
	})
}
