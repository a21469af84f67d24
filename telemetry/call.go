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

// CallContext is a context tagged with a Call, in one allocation rather
// than two. WithCall allocates one; a caller that starts several such
// contexts for each request can hold them in one allocation and Init each.
type CallContext struct {
	context.Context
	call Call
}

// Value returns the context's Call for the call's key and asks the parent
// for any other.
func (c *CallContext) Value(key any) any {
	if key == (callKey{}) {
		return &c.call
	}
	return c.Context.Value(key)
}

// Init makes c a child of parent tagged with call.
func (c *CallContext) Init(parent context.Context, call Call) {
	c.Context, c.call = parent, call
}

// WithCall returns ctx tagged with c.
func WithCall(ctx context.Context, c Call) context.Context {
	cc := new(CallContext)
	cc.Init(ctx, c)
	return cc
}

// CallOf returns the Call ctx is tagged with, or nil.
func CallOf(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}
