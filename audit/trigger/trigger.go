// Package trigger is the AuditTrigger function: the Cosmos DB trigger on
// the todo container in payload mode, the same code under the Functions
// host and behind the standalone pump. It answers each batch of changed
// documents with their audit records, and a dead letter for each document
// that cannot be audited, as the output binding's value.
package trigger

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/problem"
)

// Trigger serves POST /AuditTrigger: the Cosmos DB trigger in payload mode.
// It answers with the audit records and dead letters as the cosmosDB output
// binding's value, which the host (or the standalone pump) upserts into the
// audit container.
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

// ServeHTTP handles one invocation. Every valid document becomes an audit
// record and every invalid one a dead letter, both in the one answer; only
// an invocation that cannot be read fails, with a non-2xx answer, so the
// host's retry policy applies. Nothing panics.
func (t *Trigger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	invocation := r.Header.Get("X-Azure-Functions-InvocationId")
	req, err := azfunc.DecodeRequest(r.Body)
	if err != nil {
		t.fail(w, invocation, err)
		return
	}
	raw, ok := req.Data[t.Input]
	if !ok {
		t.fail(w, invocation, fmt.Errorf("invocation has no Data.%s", t.Input))
		return
	}
	docs, err := azfunc.Documents(raw)
	if err != nil {
		t.fail(w, invocation, err)
		return
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	got := audit.Records(docs, t.Source, now())
	out := make([]any, 0, len(got.Records)+len(got.DeadLetters))
	for _, rec := range got.Records {
		out = append(out, rec)
	}
	for _, d := range got.DeadLetters {
		t.Log.Error("audit dead letter: a document could not be audited", "deadLetter", d.ID,
			"source", d.Source, "reason", d.Reason, "sha256", d.SHA256, "invocationId", invocation)
		out = append(out, d)
	}
	t.Log.Info("audit batch", "documents", len(docs), "records", len(got.Records),
		"deadLetters", len(got.DeadLetters), "invocationId", invocation)
	azfunc.WriteResponse(w, azfunc.InvokeResponse{
		Outputs: map[string]any{t.Output: out},
		Logs: []string{fmt.Sprintf("audited %d documents as %d records and %d dead letters",
			len(docs), len(got.Records), len(got.DeadLetters))},
	})
}

func (t *Trigger) fail(w http.ResponseWriter, invocation string, err error) {
	t.Log.Error("audit batch refused", "error", err.Error(), "invocationId", invocation)
	problem.Write(w, todo.Errorf(todo.Invalid, "%s", err.Error()))
}
