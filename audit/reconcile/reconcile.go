// Package reconcile refills audit history from the version documents still
// retained in the todo container: the safety net for batches the real
// trigger dropped after its retries ran out. Each run reads only what was
// written since the previous one, from a watermark kept in the leases
// container. Handler serves it as the Reconcile timer function.
package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

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
	// Leases keeps the watermark, so that a run reads only the version
	// documents written since the previous successful one.
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
	// Margin is DefaultMargin when zero: see watermark.
	Margin time.Duration
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// DefaultMargin bounds how much earlier than its commit a write's _ts can
// be (the clocks of the store's partitions and of this process differ; a
// commit can be in flight while a run reads).
const DefaultMargin = time.Minute

// pageSize is the version documents a run reads per query page.
const pageSize = 200

// maxSeen caps the versions a watermark lists as examined.
const maxSeen = 1000

// watermark is what a successful run leaves for the next one: read the
// version documents with _ts >= Since, and skip those in Seen, which the
// run examined already. Since is the newest _ts examined plus one, or the
// run's start less the margin if that is earlier: a write that commits
// after the run read has a _ts of at least that. So a run after no writes
// reads one query page, and only back-to-back runs read a version twice.
type watermark struct {
	Since int64    `json:"since"`
	Seen  []string `json:"seen,omitempty"`
}

// Result says what a reconcile pass did.
type Result struct {
	Versions int // version documents examined
	Skipped  int // version documents read again that the previous run examined
	Refilled int // audit records written
	// Since is the _ts from which the run read, 0 when it read every
	// retained version (the first run).
	Since int64
	// Steps are the lines of the After steps that ran.
	Steps []string
}

// stamped is a version document with the time of its write.
type stamped struct {
	todo.Version
	TS int64 `json:"_ts"`
}

func seenKey(v todo.Version) string {
	return todo.EntityKey(v.UserID, v.TodoID) + ":" + strconv.FormatInt(v.Version, 10)
}

// Run examines the version documents written since the previous
// successful run (every retained one on the first), writes the audit
// records that are missing, and saves the watermark. Its cost grows with
// the writes since the previous run, not with the history retained. It is
// background work: its store calls go at low priority.
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	ctx = store.WithLowPriority(ctx)
	var res Result
	start := r.now()
	mark, err := r.load(ctx)
	if err != nil {
		return res, err
	}
	res.Since = mark.Since
	seen := make(map[string]bool, len(mark.Seen))
	for _, k := range mark.Seen {
		seen[k] = true
	}
	q := store.Query{
		Filters:  []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}},
		PageSize: pageSize,
	}
	if mark.Since > 0 {
		q.Filters = append(q.Filters, store.Filter{Field: "_ts", Op: store.Ge, Value: mark.Since})
	}
	// For the next watermark: the newest _ts read, and the versions read
	// that are within the margin of this run's start.
	newest := mark.Since - 1
	cutoff := start.Add(-r.margin()).Unix()
	var recent []stamped
	for {
		page, err := r.Todos.Query(ctx, q)
		if err != nil {
			return res, err
		}
		byEntity := map[string][]todo.Version{}
		for _, it := range page.Items {
			var v stamped
			if json.Unmarshal(it.Body, &v) != nil || audit.CheckVersion(v.Version) != nil {
				continue // the trigger dead-letters it
			}
			newest = max(newest, v.TS)
			if v.TS >= cutoff {
				recent = append(recent, stamped{Version: todo.Version{UserID: v.UserID, TodoID: v.TodoID, Version: v.Version.Version}, TS: v.TS})
			}
			if seen[seenKey(v.Version)] {
				res.Skipped++
				continue
			}
			key := todo.EntityKey(v.UserID, v.TodoID)
			byEntity[key] = append(byEntity[key], v.Version)
			res.Versions++
			if r.FinishMove != nil {
				if err := r.FinishMove(ctx, v.Version); err != nil {
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
		q.Continuation = page.Continuation
	}
	if next := nextWatermark(newest, cutoff, recent); !slices.Equal(next.Seen, mark.Seen) || next.Since != mark.Since {
		if err := r.save(ctx, next); err != nil {
			return res, err
		}
	}
	if res.Refilled > 0 {
		r.Log.Warn("reconcile refilled audit history", "records", res.Refilled, "versions", res.Versions)
	}
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

// nextWatermark is the watermark after a successful run, given the newest
// _ts it read, its start less the margin, and the versions it read from
// then on.
func nextWatermark(newest, cutoff int64, recent []stamped) watermark {
	next := watermark{Since: max(min(newest+1, cutoff), 0)}
	for _, v := range recent {
		if v.TS >= next.Since && len(next.Seen) < maxSeen {
			next.Seen = append(next.Seen, seenKey(v.Version))
		}
	}
	slices.Sort(next.Seen)
	return next
}

func (r *Reconciler) margin() time.Duration {
	if r.Margin > 0 {
		return r.Margin
	}
	return DefaultMargin
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Reconciler) watermarkID() string { return "reconcile-" + r.Todos.Spec().Name }

// load returns the watermark the previous successful run saved; the zero
// watermark (read everything) before the first, or when it is damaged.
func (r *Reconciler) load(ctx context.Context) (watermark, error) {
	var mark watermark
	s, err := store.LoadCheckpoint(ctx, r.Leases, r.watermarkID())
	if err != nil || s == "" {
		return mark, err
	}
	if err := json.Unmarshal([]byte(s), &mark); err != nil || mark.Since < 0 {
		// Reading everything again is slow but safe.
		r.Log.Warn("reconcile watermark does not decode; this run reads every retained version", "watermark", s)
		return watermark{}, nil
	}
	return mark, nil
}

func (r *Reconciler) save(ctx context.Context, mark watermark) error {
	b, err := json.Marshal(mark)
	if err != nil {
		return err
	}
	return store.SaveCheckpoint(ctx, r.Leases, r.watermarkID(), string(b))
}

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
			fmt.Sprintf("reconcile: %d version documents written since %d examined (%d more skipped, examined by the previous run), %d audit records refilled, %.1f RU",
				res.Versions, res.Since, res.Skipped, res.Refilled, m.Cost().Charge),
		}, res.Steps...)})
	})
}
