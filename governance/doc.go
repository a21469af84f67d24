// Package governance is what the law and the administrators ask of the
// audit: legal holds (holds.go), the retention purge (retention.go), the
// erasure of a user's personal content (erasure.go, the job document and
// its request; eraser.go, the runner), and the governance events that
// record each of them with its actor and reason (events.go). Its documents
// live in the audit container, in partitions no todo's records share: the
// holds, the erasure jobs and the events in the governance partition
// (todo.GovernanceKey, documents.go), a purged todo's marker in one of its
// own.
//
// It knows nothing of callers or timers: an actor is a parameter, which
// package service takes from the authenticated caller, and package app
// runs the purge after each reconcile pass and the eraser on a loop of its
// own (and under the Functions host after each reconcile pass too).
//
// The root package keeps what the audit records themselves say about an
// erasure, since the activity views, the export verifier, the API's
// schema and the browser's verifier read it too: the governance
// partition's key, the erasure entries' operation and entity type
// (todo.OpErase, todo.EntityTypeErasure), the personal fields
// (todo.PersonalFields), and the erasing of them from a version or a
// record (todo.ErasePersonal), which the chain's per-field commitments
// make possible.
package governance
