package store

import (
	"context"

	"github.com/todoaudit/todo/internal/ctxvalue"
)

type lowPriorityKey struct{}

// WithLowPriority marks the store calls made with the returned context as
// background work that may wait: under load a store that can tell the two
// apart (Cosmos DB's priority-based execution) throttles them before the
// calls users wait for. Reconcile, the move sweeper, the audit pump and
// exports mark their contexts; the handlers of user requests never do.
func WithLowPriority(ctx context.Context) context.Context {
	return ctxvalue.With[lowPriorityKey](ctx, struct{}{})
}

// IsLowPriority reports whether ctx was marked by WithLowPriority.
func IsLowPriority(ctx context.Context) bool {
	return ctxvalue.Get[lowPriorityKey, struct{}](ctx) != nil
}
