// Package ctxvalue is a context node that carries one value, as
// context.WithValue does, but holds the value inline instead of boxing it
// and can be embedded, so that a request can hold several such nodes in one
// allocation and initialise each in place.
package ctxvalue

import "context"

// Node is a child context carrying a V under the key type K, a type of the
// package that owns the value: Value answers a key of type K with a *V.
type Node[K comparable, V any] struct {
	context.Context
	V V
}

// Init makes n a child of parent carrying v, and returns where v is kept.
func (n *Node[K, V]) Init(parent context.Context, v V) *V {
	n.Context, n.V = parent, v
	return &n.V
}

// Value answers a key of type K with a pointer to the carried value and
// asks the parent for any other.
func (n *Node[K, V]) Value(key any) any {
	if _, ok := key.(K); ok {
		return &n.V
	}
	return n.Context.Value(key)
}

// With returns a new child of parent carrying v under the key type K.
func With[K comparable, V any](parent context.Context, v V) context.Context {
	n := new(Node[K, V])
	n.Init(parent, v)
	return n
}

// Get returns the value ctx carries under the key type K, or nil.
func Get[K comparable, V any](ctx context.Context) *V {
	var key K
	v, _ := ctx.Value(key).(*V)
	return v
}
