// Package reconcile refills audit history from the version documents still
// retained in the todo container: the safety net for batches the real
// trigger dropped after its retries ran out. Each run reads only what was
// written since the previous one, from a watermark kept in the leases
// container. Run is one pass: the Reconcile timer function runs it under
// the Functions host (httpapi/invocation), a loop of the handler standalone.
package reconcile

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/internal/jsondoc"
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

// watermark is what a successful run leaves for the next one.
//
// The version documents with _ts >= Since are unread, but for the seconds
// from Since on that a run read before they were over (it started in them,
// or after them only by the skew of the clocks): Open[i] says how many
// versions of second Since+i it examined, and the next run reads them
// again and examines a second only if its count changed. Otherwise Since is
// the newest _ts examined plus one.
//
// A write can commit up to the margin after its _ts, so one can still
// land behind Since, at or after the run's start less the margin: that is
// the window, the versions with Recheck <= _ts < Since, examined already;
// Counts[i] says how many of them second Recheck+i held. Runs before
// RecheckAt (the window's end when it opened, plus the margin: no write
// can land in it after that) read only from Since and add what they read
// to the window; the first run from then on reads the window again and
// examines only the seconds whose count changed, and the window restarts
// at its start less the margin. So the window spans about two margins of
// seconds, whatever the write rate. RecheckAt is 0 when there is no
// window.
//
// A watermark of the older form, {"since":…,"seen":[…]}, decodes as Since
// with no window: its run examines everything from Since again, which is
// safe.
type watermark struct {
	Since     int64   `json:"since"`
	Open      []int64 `json:"open,omitempty"`
	Recheck   int64   `json:"recheck,omitempty"`
	RecheckAt int64   `json:"recheckAt,omitempty"`
	Counts    []int64 `json:"counts,omitempty"`
}

// pending reports whether the watermark has a window to check again.
func (m watermark) pending() bool { return m.RecheckAt > 0 }

// readAgain reports whether a run reads the versions of second sec again,
// as second of the window or open second.
func (m watermark) readAgain(sec int64) bool {
	return sec < m.Since || sec-m.Since < int64(len(m.Open))
}

// examined is how many versions of second sec, in the window or open,
// were examined.
func (m watermark) examined(sec int64) int64 {
	at := func(counts []int64, i int64) int64 {
		if i >= 0 && i < int64(len(counts)) {
			return counts[i]
		}
		return 0
	}
	if sec >= m.Since {
		return at(m.Open, sec-m.Since)
	}
	if !m.pending() {
		return 0
	}
	return at(m.Counts, sec-m.Recheck)
}

// valid reports whether the watermark is one a run could have saved.
func (m watermark) valid() bool {
	negative := func(n int64) bool { return n < 0 }
	if m.Since < 0 || slices.ContainsFunc(m.Open, negative) {
		return false
	}
	if !m.pending() {
		return m.Recheck == 0 && len(m.Counts) == 0
	}
	return m.Recheck >= 0 && m.Recheck < m.Since && int64(len(m.Counts)) <= m.Since-m.Recheck && !slices.ContainsFunc(m.Counts, negative)
}

func (m watermark) equal(o watermark) bool {
	return m.Since == o.Since && m.Recheck == o.Recheck && m.RecheckAt == o.RecheckAt && slices.Equal(m.Counts, o.Counts) && slices.Equal(m.Open, o.Open)
}

// Result says what a reconcile pass did.
type Result struct {
	Versions int // version documents examined
	// Skipped are the version documents read again, in the window a
	// previous run examined, and skipped: their second's count had not
	// changed.
	Skipped  int
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
	cutoff := start.Add(-r.margin()).Unix()
	recheck := mark.pending() && start.Unix() >= mark.RecheckAt
	known := map[string]*history{}
	res.Since = mark.Since
	if recheck {
		res.Since = mark.Recheck
	}
	q := store.Query{
		Filters:  []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}},
		PageSize: pageSize,
	}
	if res.Since > 0 {
		q.Filters = append(q.Filters, store.Filter{Field: "_ts", Op: store.Ge, Value: res.Since})
	}
	newest := mark.Since - 1
	// The versions read, by second, of the seconds read again and from the
	// cutoff on (a run before the window is due reads only those), and the
	// versions read again.
	counts := map[int64]int64{}
	again := map[int64][]todo.Version{}
	for {
		page, err := r.Todos.Query(ctx, q)
		if err != nil {
			return res, err
		}
		var fresh []todo.Version
		for _, it := range page.Items {
			var v stamped
			if json.Unmarshal(it.Body, &v) != nil || audit.CheckVersion(v.Version) != nil {
				continue // the trigger dead-letters it
			}
			newest = max(newest, v.TS)
			if v.TS >= cutoff || mark.readAgain(v.TS) {
				counts[v.TS]++
			}
			if mark.readAgain(v.TS) {
				again[v.TS] = append(again[v.TS], v.Version)
			} else {
				fresh = append(fresh, v.Version)
			}
		}
		if err := r.examine(ctx, fresh, known, &res); err != nil {
			return res, err
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	// A second read again whose count changed holds a write that landed
	// after the run that examined it: examine the second again.
	var changed []todo.Version
	for sec, vs := range again {
		if counts[sec] == mark.examined(sec) {
			res.Skipped += len(vs)
		} else {
			changed = append(changed, vs...)
		}
	}
	if err := r.examine(ctx, changed, known, &res); err != nil {
		return res, err
	}
	if next := nextWatermark(mark, recheck, newest, start.Unix(), cutoff, r.margin(), counts); !next.equal(mark) {
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

// examine finishes the moves among vs and refills their missing audit
// records, one entity at a time.
func (r *Reconciler) examine(ctx context.Context, vs []todo.Version, known map[string]*history, res *Result) error {
	byEntity := map[string][]todo.Version{}
	for _, v := range vs {
		key := todo.EntityKey(v.UserID, v.TodoID)
		byEntity[key] = append(byEntity[key], v)
		res.Versions++
		if r.FinishMove != nil {
			if err := r.FinishMove(ctx, v); err != nil {
				return err
			}
		}
	}
	for key, vs := range byEntity {
		h := known[key]
		if h == nil {
			h = &history{}
			known[key] = h
		}
		n, err := r.refill(ctx, key, vs, h)
		res.Refilled += n
		if err != nil {
			return err
		}
	}
	return nil
}

// nextWatermark is the watermark after a successful run, given the one it
// loaded, whether it checked that one's window again, the newest _ts it
// read, its start, its start less the margin, and the versions it read, by
// second. A run before the window is due adds what it read to the window;
// otherwise the window restarts at the cutoff, where writes can still land.
// A _ts more than the margin after the run's start is outside what the
// margin allows (and would hold back every write before it until the
// window's check): the watermark does not move past it, and the next run
// examines such versions again.
func nextWatermark(mark watermark, recheck bool, newest, start, cutoff int64, margin time.Duration, read map[int64]int64) watermark {
	newest = min(newest, start+int64(margin/time.Second))
	next := watermark{Since: max(mark.Since, newest+1)}
	if open := max(mark.Since, start); newest >= open {
		next.Since = open
		for sec := open; sec <= newest; sec++ {
			next.Open = append(next.Open, read[sec])
		}
	}
	next.Recheck, next.RecheckAt = cutoff, next.Since+int64(margin/time.Second)
	if mark.pending() && !recheck {
		next.Recheck, next.RecheckAt = mark.Recheck, mark.RecheckAt
		next.Counts = slices.Clone(mark.Counts)
	}
	if next.Recheck >= next.Since {
		next.Recheck, next.RecheckAt, next.Counts = 0, 0, nil
		return next
	}
	for sec, n := range read {
		i := sec - next.Recheck
		if i < 0 || sec >= next.Since {
			continue
		}
		if grow := int(i) + 1 - len(next.Counts); grow > 0 {
			next.Counts = append(next.Counts, make([]int64, grow)...)
		}
		next.Counts[i] += n
	}
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
	if err := json.Unmarshal([]byte(s), &mark); err != nil || !mark.valid() {
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

// history is what a run knows of one entity's audit history: the
// versions it holds from floor on (0: nothing known yet), read once and
// kept up with the run's own refills. The versions of one entity come in
// no particular order (by id: v10 before v2), so without it every page of
// a long history would read the records after its oldest version again.
type history struct {
	floor int64
	have  map[int64]bool
}

// refill writes the records of vs missing from one entity's history,
// reading only the part of it from the oldest of vs on that h does not
// know already: each record at most once a run.
func (r *Reconciler) refill(ctx context.Context, key string, vs []todo.Version, h *history) (int, error) {
	oldest := vs[0].Version
	for _, v := range vs {
		oldest = min(oldest, v.Version)
	}
	if h.have == nil {
		h.have = map[int64]bool{}
	}
	if h.floor == 0 || oldest < h.floor {
		q := store.Query{
			PartitionKey: store.PartitionKey{key},
			Filters:      []store.Filter{{Field: "version", Op: store.Ge, Value: oldest}},
			PageSize:     store.MaxPageSize,
		}
		if h.floor > 0 {
			q.Filters = append(q.Filters, store.Filter{Field: "version", Op: store.Lt, Value: h.floor})
		}
		if err := r.versionsIn(ctx, q, h.have); err != nil {
			return 0, err
		}
		h.floor = oldest
	}
	have := h.have
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
	if err := missing.Write(ctx, r.Audit); err != nil {
		return 0, err
	}
	for _, v := range vs {
		have[v.Version] = true
	}
	return refilled, nil
}

// versionsIn adds to have the versions of the records q finds, read from
// each record's version alone.
func (r *Reconciler) versionsIn(ctx context.Context, q store.Query, have map[int64]bool) error {
	for {
		page, err := r.Audit.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			raw, err := jsondoc.Get(it.Body, "version")
			if n, perr := strconv.ParseInt(string(raw), 10, 64); err == nil && perr == nil {
				have[n] = true
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}
