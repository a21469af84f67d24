package ctxvalue_test

import (
	"context"
	"testing"

	"github.com/todoaudit/todo/internal/ctxvalue"
)

type (
	nameKey   struct{}
	otherKey  struct{}
	parentKey struct{}
)

// A node answers its own key with its value, passes other keys to its
// parent, and nodes of different keys nest.
func TestNode(t *testing.T) {
	parent := context.WithValue(context.Background(), parentKey{}, 7)
	var names ctxvalue.Node[nameKey, string]
	p := names.Init(parent, "alice")
	var others ctxvalue.Node[otherKey, int]
	others.Init(&names, 42)
	if got := ctxvalue.Get[nameKey, string](&others); got != p || *got != "alice" {
		t.Fatalf("Get(name) = %v, want the node's own value", got)
	}
	if got := ctxvalue.Get[otherKey, int](&others); got == nil || *got != 42 {
		t.Fatalf("Get(other) = %v", got)
	}
	if got := ctxvalue.Get[otherKey, int](&names); got != nil {
		t.Fatalf("a parent answered its child's key: %v", *got)
	}
	if got := others.Value(parentKey{}); got != 7 {
		t.Fatalf("a key of the parent: %v", got)
	}
	if got := ctxvalue.Get[otherKey, int](ctxvalue.With[otherKey](parent, 9)); got == nil || *got != 9 {
		t.Fatalf("With: %v", got)
	}
	if got := ctxvalue.Get[nameKey, string](context.Background()); got != nil {
		t.Fatalf("an empty context answered: %v", *got)
	}
}
