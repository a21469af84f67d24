package invocation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/transparency"
)

// LogIntegrator serves the LogIntegrator function: one pass of the log's
// integrator per invocation, its figures in the invocation's logs. A
// refused log fails the invocation, as every pass until an operator acts.
func LogIntegrator(in *transparency.Integrator, log *slog.Logger) http.Handler {
	return timer(log, "log integrator invocation refused", func(ctx context.Context) (func(float64) []string, error) {
		res, err := in.Run(ctx)
		return func(charge float64) []string {
			return []string{fmt.Sprintf("transparency log: %d leaves appended, tree size %d, checkpoint published: %t, %.1f RU",
				res.Appended, res.Size, res.Published, charge)}
		}, err
	}, func(ctx context.Context, err error) {
		if !errors.Is(err, transparency.ErrRefused) {
			log.ErrorContext(ctx, "transparency log integration failed", "error", err.Error(), "kind", todo.KindOf(err).String())
		}
	})
}
