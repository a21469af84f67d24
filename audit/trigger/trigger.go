// Package trigger is the AuditTrigger function: the Cosmos DB trigger on
// the todo container in payload mode, the same code under the Functions
// host and behind the standalone pump. It answers each batch of changed
// documents with their audit records as the output binding's value.
package trigger

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
)

// Trigger serves POST /AuditTrigger: the Cosmos DB trigger in payload mode.
// It answers with the audit records as the cosmosDB output binding's value,
// which the host (or the standalone pump) upserts into the audit container.
type Trigger struct {
	// Input is the trigger binding's name, the key in Data.
	Input string
	// Output is the cosmosDB output binding's name, the key in Outputs.
	Output string
	Log    *slog.Logger
}

// New reads the binding names from AuditTrigger's function.json.
func New(log *slog.Logger) (*Trigger, error) {
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		return nil, err
	}
	in, ok := f.Trigger()
	out, ok2 := f.Output("cosmosDB")
	if !ok || !ok2 {
		return nil, fmt.Errorf("AuditTrigger/function.json needs a trigger and a cosmosDB output binding")
	}
	return &Trigger{Input: in.Name, Output: out.Name, Log: log}, nil
}

// ServeHTTP handles one invocation. A malformed batch fails the invocation
// with a non-2xx answer, so the host's retry policy applies; nothing panics.
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
	recs, err := audit.Records(docs)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	t.Log.Info("audit batch", "documents", len(docs), "records", len(recs),
		"invocationId", r.Header.Get("X-Azure-Functions-InvocationId"))
	azfunc.WriteResponse(w, azfunc.InvokeResponse{
		Outputs: map[string]any{t.Output: recs},
		Logs:    []string{fmt.Sprintf("audited %d documents as %d records", len(docs), len(recs))},
	})
}

func (t *Trigger) fail(w http.ResponseWriter, r *http.Request, err error) {
	t.Log.Error("audit batch refused", "error", err.Error(),
		"invocationId", r.Header.Get("X-Azure-Functions-InvocationId"))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = fmt.Fprintf(w, `{"error":%q}`, err.Error())
}
