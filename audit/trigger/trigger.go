// Package trigger is the core of the AuditTrigger function, the Cosmos DB
// trigger on the todo container: Audit turns each batch of changed
// documents into their audit records, and a dead letter for each document
// that cannot be audited. Under the Functions host httpapi/invocation
// answers them as the output binding's value; standalone audit/pump calls
// Audit in-process and writes them itself.
package trigger

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/telemetry"
)

// DeadLetterMessage is the message of the error line logged for each dead
// letter. Under the Functions host it reaches Application Insights as a
// trace, which the deployment's dead-letter alert counts.
const DeadLetterMessage = "audit dead letter: a document could not be audited"

// Trigger audits the batches of one monitored container.
type Trigger struct {
	// Source is the monitored container's name, recorded in dead letters.
	Source string
	Log    *slog.Logger
	// Now is the clock that stamps dead letters; time.Now when nil.
	Now func() time.Time
	// Telemetry traces each batch and records the audit lag and dead letters; nil records
	// nothing.
	Telemetry *telemetry.Telemetry
}

// New returns the trigger of the container named source.
func New(source string, log *slog.Logger) *Trigger {
	return &Trigger{Source: source, Log: log}
}

// Audit turns one batch of change-feed documents into their audit records
// and dead letters: the function's core, which the host reaches through
// httpapi/invocation and the standalone pump calls directly. It traces the
// batch, linked to the writes it audits, logs every dead letter and
// records the audit lag.
func (t *Trigger) Audit(ctx context.Context, docs []json.RawMessage) audit.Outcome {
	ctx, span := t.Telemetry.Start(ctx, "audit batch", trace.WithLinks(writeLinks(t.Telemetry, docs)...))
	defer span.End()
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	at := now()
	got := audit.Records(docs, t.Source, at)
	for _, rec := range got.Records {
		t.Telemetry.Metrics().AuditLag(ctx, at.Sub(rec.DateCreatedUTC))
	}
	for _, d := range got.DeadLetters {
		t.Log.ErrorContext(ctx, DeadLetterMessage, "deadLetter", d.ID,
			"source", d.Source, "reason", d.Reason, "sha256", d.SHA256)
	}
	t.Telemetry.Metrics().DeadLetters(ctx, len(got.DeadLetters))
	span.SetAttributes(attribute.Int(audit.AttrDocuments, len(docs)), attribute.Int(audit.AttrRecords, len(got.Records)),
		attribute.Int(audit.AttrDeadLetters, len(got.DeadLetters)))
	t.Log.InfoContext(ctx, "audit batch", "documents", len(docs), "records", len(got.Records),
		"deadLetters", len(got.DeadLetters))
	return got
}

// writeLinks links a batch's span to the writes it audits: every version
// document carries the traceparent of the request that wrote it. Only
// computed when tracing, and it skims the documents rather than decoding
// them.
func writeLinks(tel *telemetry.Telemetry, docs []json.RawMessage) []trace.Link {
	if !tel.Tracing() {
		return nil
	}
	var links []trace.Link
	for _, raw := range docs {
		var typ, todoID, version, parent []byte
		if jsondoc.Each(raw, func(name, value []byte) bool {
			switch string(name) {
			case "type":
				typ = value
			case "todoId":
				todoID = value
			case "version":
				version = value
			case "traceparent":
				parent = value
			}
			return true
		}) != nil || string(typ) != `"`+todo.TypeVersion+`"` || parent == nil {
			continue
		}
		var v struct {
			TodoID      string
			Version     int64
			TraceParent string
		}
		if json.Unmarshal(todoID, &v.TodoID) != nil || json.Unmarshal(version, &v.Version) != nil || json.Unmarshal(parent, &v.TraceParent) != nil {
			continue
		}
		if sc, ok := telemetry.SpanContextOf(v.TraceParent, ""); ok {
			links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{
				attribute.String(audit.AttrTodoID, v.TodoID), attribute.Int64(audit.AttrVersion, v.Version)}})
		}
	}
	return links
}
