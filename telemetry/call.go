package telemetry

import "context"

// Call is what identifies one request or payload invocation in logs and
// metrics: the function serving it and the Functions host's invocation id
// ("" standalone).
type Call struct {
	Function     string
	InvocationID string
}

type callKey struct{}

// callContext carries a Call. It is its own context node, so tagging a
// request costs one allocation rather than two.
type callContext struct {
	context.Context
	call Call
}

func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return &c.call
	}
	return c.Context.Value(key)
}

// WithCall returns ctx tagged with c.
func WithCall(ctx context.Context, c Call) context.Context {
	return &callContext{Context: ctx, call: c}
}

// CallOf returns the Call ctx is tagged with, or nil.
func CallOf(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}
