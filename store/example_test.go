package store_test

import (
	"fmt"

	"github.com/todoaudit/todo/store"
)

// A query's scope follows how much of a hierarchical partition key it
// names: all of it is one logical partition, a prefix is the user's
// partitions, nothing is every partition. The API reports it in
// X-Query-Scope.
func ExampleScopeOf() {
	paths := 2 // /userId, /category
	for _, pk := range []store.PartitionKey{{"alice", "Grocery"}, {"alice"}, nil} {
		fmt.Println(pk, store.ScopeOf(pk, paths))
	}
	// Output:
	// [alice, Grocery] partition
	// [alice] prefix
	// [] cross-partition
}
