// Package reconcile refills audit history from the version documents still
// retained in the todo container: the safety net for batches the real
// trigger dropped after its retries ran out. Each run reads only what was
// written since the previous one, from its own change feed continuation
// kept in the leases container. Handler serves it as the Reconcile timer
// function.
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
	"github.com/todoaudit/todo/store"
)

// Reconciler refills one audit container from one todo container.
type Reconciler struct {
	Todos store.Container
	Audit store.Container
	// Leases keeps the continuation, so that a run reads only the changes
	// since the previous one.
	Leases store.Container
	Log    *slog.Logger
	// FinishMove, when set, is called with every version document a run
	// examines, so that a move interrupted after its first step (the
	// version that marks the old todo) is completed by the next run.
	FinishMove func(context.Context, todo.Version) error
	// After are the steps each run takes after its pass, each a bounded
	// amount of background work (the activity view's backfill, say), in
	// order; each returns a line for the logs.
	After []func(context.Context) (string, error)
}

// feedPage is how many changed documents a run reads per request.
const feedPage = 1000

// Result says what a reconcile pass did.
type Result struct {
	Versions int // version documents examined
	Refilled int // audit records written
	// FromStart is set when the run read every retained change (the first
	// run, or one whose continuation was lost).
	FromStart bool
	// Steps are the lines of the After steps that ran.
	Steps []string
}

// Run examines the version documents written since the previous run
// (every retained one on the first), writes the audit records that are
// missing, and saves its place after each page. It reads the todo
// container's change feed, not a query by _ts: a change committed after a
// run read is in the next run's feed whatever its _ts, so nothing is read
// twice and a run after no writes costs the continuation's point read and
// one empty read of the feed, whatever was written before. Then its After
// steps run. It is background work: its store calls go at low priority.
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	ctx = store.WithLowPriority(ctx)
	var res Result
	if err := r.pass(ctx, &res); err != nil {
		return res, err
	}
	r.logRefilled(res)
	for _, step := range r.After {
		line, err := step(ctx)
		if line != "" {
			res.Steps = append(res.Steps, line)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// pass reads the change feed from the saved continuation, examining each
// page and saving the continuation after it.
func (r *Reconciler) pass(ctx context.Context, res *Result) error {
	id := r.checkpointID()
	cont, err := store.LoadCheckpoint(ctx, r.Leases, id)
	if err != nil {
		return err
	}
	if cont == "" {
		return r.fromStart(ctx, res)
	}
	for {
		b, err := r.Todos.ChangeFeed(ctx, cont, feedPage)
		if todo.IsKind(err, todo.Invalid) {
			// Reading everything again is slow but safe.
			r.Log.Warn("reconcile continuation is not valid; this run reads every retained version", "error", err.Error())
			return r.fromStart(ctx, res)
		}
		if err != nil {
			return err
		}
		if b.Continuation == cont {
			return nil
		}
		if err := r.examine(ctx, b.Items, res); err != nil {
			return err
		}
		cont = b.Continuation
		if err := store.SaveCheckpoint(ctx, r.Leases, id, cont); err != nil {
			return err
		}
		if len(b.Items) == 0 {
			return nil // the feed moved past deleted items only
		}
	}
}

// fromStart is the first run: it takes its continuation at the end of the
// change feed, then examines every retained version document with a query
// (what the feed holds up to that continuation, and perhaps more), and
// saves the continuation once all are examined.
func (r *Reconciler) fromStart(ctx context.Context, res *Result) error {
	res.FromStart = true
	end := ""
	for {
		b, err := r.Todos.ChangeFeed(ctx, end, feedPage)
		if err != nil {
			return err
		}
		if len(b.Items) == 0 || b.Continuation == end {
			break
		}
		end = b.Continuation
	}
	q := store.Query{
		Filters:  []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}},
		PageSize: store.MaxPageSize,
	}
	for {
		page, err := r.Todos.Query(ctx, q)
		if err != nil {
			return err
		}
		if err := r.examine(ctx, page.Items, res); err != nil {
			return err
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	if end == "" {
		return nil // an empty feed: the next run starts over, as cheaply
	}
	return store.SaveCheckpoint(ctx, r.Leases, r.checkpointID(), end)
}

func (r *Reconciler) logRefilled(res Result) {
	if res.Refilled > 0 {
		r.Log.Warn("reconcile refilled audit history", "records", res.Refilled, "versions", res.Versions)
	}
}

// examine refills the audit records missing for the version documents
// among changed items, and finishes the moves they mark.
func (r *Reconciler) examine(ctx context.Context, items []store.Item, res *Result) error {
	byEntity := map[string][]todo.Version{}
	var order []string
	for _, it := range items {
		var v todo.Version
		if json.Unmarshal(it.Body, &v) != nil || v.Type != todo.TypeVersion || audit.CheckVersion(v) != nil {
			continue // not a version document, or one the trigger dead-letters
		}
		key := todo.EntityKey(v.UserID, v.TodoID)
		if byEntity[key] == nil {
			order = append(order, key)
		}
		byEntity[key] = append(byEntity[key], v)
		res.Versions++
		if r.FinishMove != nil {
			if err := r.FinishMove(ctx, v); err != nil {
				return err
			}
		}
	}
	for _, key := range order {
		n, err := r.refill(ctx, key, byEntity[key])
		res.Refilled += n
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *Reconciler) checkpointID() string { return "reconcile-feed-" + r.Todos.Spec().Name }

// refill writes the records of vs missing from one entity's history,
// reading only the part of it from the oldest of vs on.
func (r *Reconciler) refill(ctx context.Context, key string, vs []todo.Version) (int, error) {
	oldest := vs[0].Version
	for _, v := range vs {
		oldest = min(oldest, v.Version)
	}
	have := map[int64]bool{}
	q := store.Query{
		PartitionKey: store.PartitionKey{key},
		Filters:      []store.Filter{{Field: "version", Op: store.Ge, Value: oldest}},
		PageSize:     store.MaxPageSize,
	}
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
	var missing audit.Outcome
	refilled := 0
	for _, v := range vs {
		if have[v.Version] {
			continue
		}
		refilled++
		rec, err := todo.NewAuditRecord(v)
		if err != nil {
			return 0, err
		}
		missing.Records = append(append(missing.Records, rec), todo.ActivityEntries(rec, v.Category)...)
	}
	if len(missing.Records) == 0 {
		return 0, nil
	}
	return refilled, missing.Write(ctx, r.Audit)
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
		azfunc.WriteResponse(w, azfunc.InvokeResponse{Logs: append([]string{
			fmt.Sprintf("reconcile: %d version documents changed since the previous run examined, %d audit records refilled, %.1f RU",
				res.Versions, res.Refilled, m.Cost().Charge),
		}, res.Steps...)})
	})
}
