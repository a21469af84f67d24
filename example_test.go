package todo_test

import (
	"fmt"

	"github.com/todoaudit/todo"
)

// Every version of a todo has deterministic ids, so a change delivered
// twice by the change feed never adds a second record, and its audit
// partition key names the owner, so one user's history query can never
// read another's.
func ExampleAuditID() {
	id := "Grocery:41500e6e-0f8a-4b1c-9d2e-3f4a5b6c7d8e"
	fmt.Println(todo.AuditID(id, 3))
	fmt.Println(todo.EntityKey("alice", id))
	// Output:
	// Grocery:41500e6e-0f8a-4b1c-9d2e-3f4a5b6c7d8e:v3
	// todo/alice/Grocery:41500e6e-0f8a-4b1c-9d2e-3f4a5b6c7d8e
}

// A category is part of ids, URL paths and partition keys, so only
// characters that are safe in all three are accepted; a bad one is an
// Invalid error, which the API answers with 400.
func ExampleValidateCategory() {
	for _, c := range []string{"Home Office", "日本語", "a/b", "Grocery%2F"} {
		err := todo.ValidateCategory(c)
		fmt.Printf("%q: %v\n", c, todo.KindOf(err) == todo.Invalid)
	}
	// Output:
	// "Home Office": false
	// "日本語": false
	// "a/b": true
	// "Grocery%2F": true
}
