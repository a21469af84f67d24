package invocation

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/store"
)

// Reconcile serves the Reconcile timer function: one pass per invocation,
// its figures in the invocation's logs.
func Reconcile(rec *reconcile.Reconciler, log *slog.Logger) http.Handler {
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
			fmt.Sprintf("reconcile: %d version documents written since %d examined (%d more read again and skipped, their second unchanged since a previous run examined it), %d audit records refilled, %.1f RU",
				res.Versions, res.Since, res.Skipped, res.Refilled, m.Cost().Charge),
		}, res.Steps...)})
	})
}
