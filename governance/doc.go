// Package governance is what the law and the administrators ask of the
// audit: legal holds, the retention purge, and the governance events that
// record every hold, release and purge run with its actor and reason.
// Its documents live in the audit container, in partitions no todo's
// records share: the holds and the events in the governance partition
// (todo.GovernanceKey), a purged todo's marker in one of its own.
//
// The root package keeps the governance partition's key: the audit
// records shown there are read by the activity views and the export
// verifier too.
package governance
