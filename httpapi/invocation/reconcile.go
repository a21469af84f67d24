package invocation

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
)

// Reconcile serves the Reconcile timer function: one pass per invocation,
// its figures in the invocation's logs.
func Reconcile(rec *reconcile.Reconciler, log *slog.Logger) http.Handler {
	return timer(log, "reconcile invocation refused", func(ctx context.Context) (func(float64) []string, error) {
		res, err := rec.Run(ctx)
		return func(charge float64) []string {
			return append([]string{
				fmt.Sprintf("reconcile: %d version documents written since %d examined (%d more read again and skipped, their second unchanged since a previous run examined it), %d audit records refilled, %.1f RU",
					res.Versions, res.Since, res.Skipped, res.Refilled, charge),
			}, res.Steps...)
		}, err
	}, func(ctx context.Context, err error) {
		log.ErrorContext(ctx, "reconcile failed", "error", err.Error(), "kind", todo.KindOf(err).String())
	})
}
