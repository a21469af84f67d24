package audit

// Span attributes of the audit path: the trigger's batch span and the
// pump's read and delivery spans, and the links to the writes audited.
const (
	AttrDocuments   = "audit.documents"
	AttrRecords     = "audit.records"
	AttrDeadLetters = "audit.dead_letters"
	AttrTodoID      = "todo.id"
	AttrVersion     = "todo.version"
)
