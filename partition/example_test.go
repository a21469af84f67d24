package partition_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/todoaudit/todo/partition"
)

// Under the hierarchical scheme a todo id embeds its category, so the id
// alone gives the whole partition key for a point read: the caller from
// authentication, the category from the id.
func ExampleScheme_hierarchical() {
	s, err := partition.New(partition.Hierarchical, 0, nil)
	if err != nil {
		panic(err)
	}
	key, err := s.NewKey(context.Background(), "alice", "Grocery")
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(key.ID, "Grocery:"), key.PartitionKey)

	pk, err := s.Resolve("alice", "Grocery:41500e6e-0f8a-4b1c-9d2e-3f4a5b6c7d8e")
	fmt.Println(pk, err)
	// Another user's view of the same id is another partition: nobody
	// reaches alice's todo by guessing its id.
	pk, err = s.Resolve("bob", "Grocery:41500e6e-0f8a-4b1c-9d2e-3f4a5b6c7d8e")
	fmt.Println(pk, err)
	// Output:
	// true [alice, Grocery]
	// [alice, Grocery] <nil>
	// [bob, Grocery] <nil>
}

// The synthetic scheme spreads one user's todos over buckets: the id
// embeds the bucket number, the partition key is user-bucket.
func ExampleBucket() {
	s, err := partition.New(partition.Synthetic, 8, nil)
	if err != nil {
		panic(err)
	}
	pk, err := s.Resolve("alice", "5:41500e6e-0f8a-4b1c-9d2e-3f4a5b6c7d8e")
	fmt.Println(pk, err, partition.Bucket("alice", 5))
	// Output: [alice-5] <nil> alice-5
}
