package invocation

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/store"
)

// timer serves a timer function: one run of a core per invocation, metered
// on the store, whose log lines (given the run's RU charge) become the
// invocation's logs. An invocation the host did not send is refused and
// logged as refused; a run that fails fails the invocation, and failed
// is told of its error first.
func timer(log *slog.Logger, refused string, run func(ctx context.Context) (lines func(charge float64) []string, err error),
	failed func(ctx context.Context, err error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := azfunc.DecodeRequest(r.Body); err != nil {
			log.Error(refused, "error", err.Error())
			azfunc.WriteFailure(w, err)
			return
		}
		ctx, m := store.WithMeter(r.Context())
		lines, err := run(ctx)
		if err != nil {
			failed(r.Context(), err)
			problem.Write(w, err)
			return
		}
		azfunc.WriteResponse(w, azfunc.InvokeResponse{Logs: lines(m.Cost().Charge)})
	})
}
