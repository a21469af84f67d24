package invocation

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
)

// AuditTrigger serves the AuditTrigger function, the Cosmos DB trigger on
// the todo container. It answers with the audit records and dead letters
// its core makes of the batch, as the cosmosDB output binding's value,
// whose items the host upserts into the audit container one by one.
type AuditTrigger struct {
	Core *trigger.Trigger
	// Input is the trigger binding's name, the key in Data.
	Input string
	// Output is the cosmosDB output binding's name, the key in Outputs.
	Output string
	Log    *slog.Logger
}

// NewAuditTrigger reads the binding names from AuditTrigger's
// function.json.
func NewAuditTrigger(core *trigger.Trigger, log *slog.Logger) (*AuditTrigger, error) {
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		return nil, err
	}
	in, ok := f.Trigger()
	out, ok2 := f.Output("cosmosDB")
	if !ok || !ok2 {
		return nil, fmt.Errorf("AuditTrigger/function.json needs a trigger and a cosmosDB output binding")
	}
	return &AuditTrigger{Core: core, Input: in.Name, Output: out.Name, Log: log}, nil
}

// ServeHTTP handles one invocation from the Functions host. Every valid
// document becomes an audit record and every invalid one a dead letter,
// both in the one answer; only an invocation that cannot be read fails,
// with a non-2xx answer, so the host's retry policy applies. Nothing
// panics.
func (t *AuditTrigger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	got := t.Core.Audit(r.Context(), docs)
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

func (t *AuditTrigger) fail(w http.ResponseWriter, r *http.Request, err error) {
	t.Log.ErrorContext(r.Context(), "audit batch refused", "error", err.Error())
	azfunc.WriteFailure(w, err)
}
