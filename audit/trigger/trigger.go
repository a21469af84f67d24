// Package trigger is the AuditTrigger function: the Cosmos DB trigger on
// the todo container in payload mode. Its core (Audit) turns each batch of
// changed documents into their audit records, and a dead letter for each
// document that cannot be audited; under the Functions host ServeHTTP
// answers them as the output binding's value, and standalone the pump
// calls Audit in-process and writes them itself.
package trigger

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/telemetry"
)

// DeadLetterMessage is the message of the error line logged for each dead
// letter. Under the Functions host it reaches Application Insights as a
// trace, which the deployment's dead-letter alert counts.
const DeadLetterMessage = "audit dead letter: a document could not be audited"

// Trigger serves POST /AuditTrigger under the Functions host: the Cosmos DB
// trigger in payload mode. It answers with the audit records and dead
// letters as the cosmosDB output binding's value, whose items the host
// upserts into the audit container one by one.
type Trigger struct {
	// Input is the trigger binding's name, the key in Data.
	Input string
	// Output is the cosmosDB output binding's name, the key in Outputs.
	Output string
	// Source is the monitored container's name, recorded in dead letters.
	Source string
	Log    *slog.Logger
	// Now is the clock that stamps dead letters; time.Now when nil.
	Now func() time.Time
	// Telemetry traces each batch and records the audit lag and dead letters; nil records
	// nothing.
	Telemetry *telemetry.Telemetry
}

// New reads the binding names from AuditTrigger's function.json; source is
// the name of the container it monitors.
func New(source string, log *slog.Logger) (*Trigger, error) {
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		return nil, err
	}
	in, ok := f.Trigger()
	out, ok2 := f.Output("cosmosDB")
	if !ok || !ok2 {
		return nil, fmt.Errorf("AuditTrigger/function.json needs a trigger and a cosmosDB output binding")
	}
	return &Trigger{Input: in.Name, Output: out.Name, Source: source, Log: log}, nil
}

// ServeHTTP handles one invocation from the Functions host. Every valid
// document becomes an audit record and every invalid one a dead letter,
// both in the one answer; only an invocation that cannot be read fails,
// with a non-2xx answer, so the host's retry policy applies. Nothing
// panics.
func (t *Trigger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, err := azfunc.DecodeRequest(r.Body)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	raw, ok := req.Data[t.Input]
	if !ok {
		t.fail(w, r, fmt.Errorf("invocation has no Data.%s", t.Input))
		return
	}
	docs, err := azfunc.Documents(raw)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	got := t.Audit(r.Context(), docs)
	out := make([]any, 0, len(got.Records)+len(got.DeadLetters))
	for _, rec := range got.Records {
		out = append(out, rec)
	}
	for _, d := range got.DeadLetters {
		out = append(out, d)
	}
	azfunc.WriteResponse(w, azfunc.InvokeResponse{
		Outputs: map[string]any{t.Output: out},
		Logs: []string{fmt.Sprintf("audited %d documents as %d records and %d dead letters",
			len(docs), len(got.Records), len(got.DeadLetters))},
	})
}

// Audit turns one batch of change-feed documents into their audit records
// and dead letters: the function's core, which the host reaches through
// ServeHTTP and the standalone pump calls directly. It traces the batch,
// linked to the writes it audits, logs every dead letter and records the
// audit lag.
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

func (t *Trigger) fail(w http.ResponseWriter, r *http.Request, err error) {
	t.Log.ErrorContext(r.Context(), "audit batch refused", "error", err.Error())
	azfunc.WriteFailure(w, err)
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
