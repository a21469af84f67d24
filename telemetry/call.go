package telemetry

import (
	"context"

	"github.com/todoaudit/todo/internal/ctxvalue"
)

// Call is what identifies one request or payload invocation in logs and
// metrics: the function serving it and the Functions host's invocation id
// ("" standalone).
type Call struct {
	Function     string
	InvocationID string
}

type callKey struct{}

// CallContext is a context tagged with a Call, in one allocation with it.
// WithCall allocates one; a caller that starts several such contexts for
// each request can hold them in one allocation and Init each.
type CallContext = ctxvalue.Node[callKey, Call]

// WithCall returns ctx tagged with c.
func WithCall(ctx context.Context, c Call) context.Context { return ctxvalue.With[callKey](ctx, c) }

// CallOf returns the Call ctx is tagged with, or nil.
func CallOf(ctx context.Context) *Call {
	return ctxvalue.Get[callKey, Call](ctx)
}
