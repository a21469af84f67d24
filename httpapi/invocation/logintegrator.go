package invocation

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency"
)

// LogIntegrator serves the LogIntegrator function: one pass of the log's
// integrator per invocation, its figures in the invocation's logs. A
// refused log fails the invocation, as every pass until an operator acts.
func LogIntegrator(in *transparency.Integrator, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := azfunc.DecodeRequest(r.Body); err != nil {
			log.Error("log integrator invocation refused", "error", err.Error())
			azfunc.WriteFailure(w, err)
			return
		}
		ctx, m := store.WithMeter(r.Context())
		res, err := in.Run(ctx)
		if err != nil {
			if !errors.Is(err, transparency.ErrRefused) {
				log.ErrorContext(r.Context(), "transparency log integration failed", "error", err.Error(), "kind", todo.KindOf(err).String())
			}
			problem.Write(w, err)
			return
		}
		azfunc.WriteResponse(w, azfunc.InvokeResponse{Logs: []string{
			fmt.Sprintf("transparency log: %d leaves appended, tree size %d, checkpoint published: %t, %.1f RU",
				res.Appended, res.Size, res.Published, m.Cost().Charge),
		}})
	})
}
