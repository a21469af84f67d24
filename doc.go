// Package todo holds the domain of the partition-aware todo and audit API:
// the todo, version and audit record types, their validation, and the error
// kinds every layer speaks. It imports nothing from Azure; the adapters in
// bolt/ and cosmos/ translate their own failures into these kinds.
package todo
