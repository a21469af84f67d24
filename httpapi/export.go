package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/store"
)

// lazyWriter sends an export's headers with its first byte, so that an
// error before any record (a todo that does not exist, say) is still
// answered as a problem.
type lazyWriter struct {
	w       http.ResponseWriter
	format  string
	started bool
}

func (l *lazyWriter) Write(b []byte) (int, error) {
	if !l.started {
		l.started = true
		h := l.w.Header()
		h.Set("Content-Type", l.format)
		h.Set("Cache-Control", "no-store")
		l.w.WriteHeader(http.StatusOK)
	}
	return l.w.Write(b)
}

// exportFormat is the format an Accept header asks for: CSV when it names
// text/csv, NDJSON otherwise.
func exportFormat(r *http.Request) string {
	if strings.Contains(r.Header.Get("Accept"), export.CSV) {
		return export.CSV
	}
	return export.NDJSON
}

// stream runs an export: run hands each record to emit and calls flush
// after each page, which writes the page's records with their leaves'
// indexes in the log; the manifest follows, naming the checkpoint. Once the first byte is out an
// error can no longer change the status: it is logged and the answer ends
// without its manifest, which is how a reader knows it is incomplete.
func (a *api) stream(ctx context.Context, w http.ResponseWriter, r *http.Request, filters map[string]string,
	run func(emit func(todo.AuditRecord) error, flush func() error) error) error {
	lw := &lazyWriter{w: w, format: exportFormat(r)}
	var log export.Log
	if a.Transparency != nil {
		log = a.Transparency
	}
	ew := export.New(lw, lw.format, filters, log)
	// The log's documents are read at low priority too, as the records are.
	low := store.WithLowPriority(ctx)
	flusher, _ := w.(http.Flusher)
	err := run(ew.Write, func() error {
		if err := ew.Flush(low); err != nil {
			return err
		}
		if flusher != nil && lw.started {
			flusher.Flush()
		}
		return nil
	})
	if err == nil {
		_, err = ew.Close(low)
	}
	if err != nil && lw.started {
		a.Log.ErrorContext(ctx, "export ended early", "error", err.Error(), "kind", todo.KindOf(err).String())
		return nil
	}
	return err
}

// exportFilters are the parameters of an export as its manifest lists
// them: those given, not the continuation or the function key.
func exportFilters(q map[string]string) map[string]string {
	out := make(map[string]string, len(q))
	for k, v := range q {
		if k != "continuation" && k != "pageSize" {
			out[k] = v
		}
	}
	return out
}

// historyExport serves GET /api/todos/{id}/history/export.
func (a *api) historyExport(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	if _, err := queryOf(r); err != nil {
		return err
	}
	return a.stream(ctx, w, r, map[string]string{"id": id}, func(emit func(todo.AuditRecord) error, flush func() error) error {
		return a.Service.ExportHistory(ctx, id, emit, flush)
	})
}

// exportActivity serves GET /api/activity/export and, for
// administrators, GET /api/manage/audit/export.
func (a *api) exportActivity(ctx context.Context, w http.ResponseWriter, r *http.Request, admin bool) error {
	f, q, err := activityFilter(r, admin)
	if err != nil {
		return err
	}
	if _, formed := q["form"]; formed || f.Continuation != "" || f.PageSize != 0 {
		return todo.Errorf(todo.Invalid, "an export takes the filters of its list, not pageSize, continuation or form")
	}
	return a.stream(ctx, w, r, exportFilters(q), func(emit func(todo.AuditRecord) error, flush func() error) error {
		return a.Service.ExportActivity(ctx, f, admin, emit, flush)
	})
}

func (a *api) myActivityExport(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	return a.exportActivity(ctx, w, r, false)
}

func (a *api) auditActivityExport(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	return a.exportActivity(ctx, w, r, true)
}
