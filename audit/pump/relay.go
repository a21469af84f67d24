package pump

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/store"
)

var _ store.Relay = (*Pump)(nil)

// Relay does the pump's work for a write in the write's own transaction,
// on a store that runs relays (store.Relaying, the embedded store): the
// version documents a batch of the todo container creates become their
// audit records and activity entries, written with the todo, and the
// version documents are retired in the same commit, exactly as the pump
// would write and retire them. The change feed then never carries them;
// the pump reads the todo documents beside them, which it audits through
// their version documents, and so passes over, and it still audits
// everything else. A batch the pump would treat otherwise is left to it
// whole: one with no version document created, a move's (whose version
// document finishes an interrupted move), one with a document that cannot
// be audited (its dead letter), or any while Reserve is zero (version
// documents are then kept for their TTL).
func (p *Pump) Relay(ctx context.Context, _ store.PartitionKey, ops []store.Op) (store.Relayed, bool) {
	if p.Reserve <= 0 {
		return store.Relayed{}, false
	}
	var docs []json.RawMessage
	var at []int // the index in ops of each of docs
	for i, op := range ops {
		if op.Kind == store.BatchCreate && isVersion(op.Doc) {
			docs = append(docs, op.Doc)
			at = append(at, i)
		}
	}
	if len(docs) == 0 {
		return store.Relayed{}, false
	}
	// The audit is part of the write: its span sits in the write's trace.
	ctx, span := p.Telemetry.Start(ctx, "audit relay")
	defer span.End()
	now := time.Now()
	out := audit.Records(docs, p.Trigger.Source, now)
	span.SetAttributes(attribute.Int(audit.AttrDocuments, len(docs)), attribute.Int(audit.AttrRecords, len(out.Records)),
		attribute.Int(audit.AttrDeadLetters, len(out.DeadLetters)))
	if len(out.DeadLetters) > 0 || len(out.Recorded) != len(docs) {
		return store.Relayed{}, false
	}
	ups, err := out.Upserts(p.Audit.Spec().Name)
	if err != nil {
		return store.Relayed{}, false
	}
	retire := make([]int, len(out.Recorded))
	for j, d := range out.Recorded {
		retire[j] = at[d]
	}
	for _, rec := range out.Records {
		p.Telemetry.Metrics().AuditLag(ctx, now.Sub(rec.DateCreatedUTC))
	}
	return store.Relayed{Upserts: ups, Retire: retire, Reserved: now.Add(p.Reserve)}, true
}

// isVersion reports whether doc is a version document, skimming its type.
func isVersion(doc []byte) bool {
	version := false
	_ = jsondoc.Each(doc, func(name, value []byte) bool {
		if string(name) != "type" {
			return true
		}
		version = jsondoc.StringIs(value, todo.TypeVersion)
		return false
	})
	return version
}
