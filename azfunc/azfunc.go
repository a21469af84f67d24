// Package azfunc is the Azure Functions custom-handler wire protocol, and
// nothing else: the payload-mode invocation envelope the host POSTs to
// /{FunctionName}, the response it expects back, and the Cosmos DB trigger's
// string-encoded documents.
package azfunc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/problem"
)

// InvokeRequest is the body the host sends in payload mode. Values that are
// .NET strings arrive JSON-encoded once more (a route parameter "a" arrives
// as "\"a\""); objects arrive as objects.
type InvokeRequest struct {
	Data     map[string]json.RawMessage `json:"Data"`
	Metadata map[string]json.RawMessage `json:"Metadata"`
}

// InvokeResponse is what the handler returns: always 200 with
// Content-Type application/json and a JSON object, or the invocation fails
// (or, with an empty body, hangs until the function timeout). Keys inside
// Outputs must equal the output binding names of function.json exactly.
type InvokeResponse struct {
	Outputs     map[string]any `json:"Outputs"`
	Logs        []string       `json:"Logs"`
	ReturnValue any            `json:"ReturnValue"`
}

// InvokeResult is a handler's reply as the host reads it, with output
// values kept as the handler encoded them.
type InvokeResult struct {
	Outputs     map[string]json.RawMessage `json:"Outputs"`
	Logs        []string                   `json:"Logs"`
	ReturnValue json.RawMessage            `json:"ReturnValue"`
}

// Sys is Metadata.sys, which the host adds to every invocation.
type Sys struct {
	MethodName string `json:"MethodName"`
	UtcNow     string `json:"UtcNow"`
	RandGUID   string `json:"RandGuid"`
}

// MaxResponseBytes bounds a handler's reply as DecodeResponse reads it.
const MaxResponseBytes = 64 << 20

// InvocationIDHeader carries the host's invocation id on every request it
// sends the handler, payload invocations and forwarded HTTP requests alike.
// The trace context travels beside it as W3C traceparent and tracestate
// headers: the host's HTTP client adds those of the invocation's activity
// (a forwarded request keeps its caller's own), so the handler continues
// the host's trace from the headers; the payload's Metadata carries only
// binding data and sys, never a trace context.
//
// It is spelt in canonical MIME form, so that Header.Get finds it without
// allocating a canonical copy on every request.
const InvocationIDHeader = "X-Azure-Functions-Invocationid"

// DecodeRequest reads an invocation envelope. The host streams it chunked,
// so its length is unknown: the caller bounds r (http.MaxBytesReader), and
// the envelope is decoded as it streams in rather than read whole first.
func DecodeRequest(r io.Reader) (*InvokeRequest, error) {
	var req InvokeRequest
	dec := json.NewDecoder(r)
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("invocation is not a JSON object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("invocation: %w", err)
		}
		return nil, errors.New("invocation has data after its JSON object")
	}
	if req.Data == nil {
		return nil, errors.New("invocation has no Data")
	}
	return &req, nil
}

// WriteFailure fails an invocation with a problem answer that is not 2xx,
// so that the host's retry policy applies: 413 for a body over its limit,
// 400 for any other malformed invocation.
func WriteFailure(w http.ResponseWriter, err error) {
	kind := todo.Invalid
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		kind = todo.TooLarge
	}
	problem.Write(w, todo.Wrap(kind, err, err.Error()))
}

// maxEncodings bounds how many times a value may be string-encoded.
const maxEncodings = 4

// Documents decodes the documents of a Cosmos DB trigger from Data[name],
// however many times they are JSON-string-encoded: extension 4.x sends a
// string holding a string holding the array, 3.x a string holding the array.
func Documents(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	for range maxEncodings {
		if len(raw) == 0 || raw[0] != '"' {
			break
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("documents: %w", err)
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	var docs []json.RawMessage
	if err := json.Unmarshal(raw, &docs); err != nil {
		return nil, fmt.Errorf("documents are not a JSON array: %w", err)
	}
	for i, d := range docs {
		if d = bytes.TrimSpace(d); len(d) == 0 || d[0] != '{' {
			return nil, fmt.Errorf("document %d is not a JSON object", i)
		}
	}
	return docs, nil
}

// EncodeDocuments encodes documents exactly as the extension 4.x host does:
// the compact array text, as a JSON string, as a JSON string again.
func EncodeDocuments(docs []json.RawMessage) (json.RawMessage, error) {
	var arr bytes.Buffer
	arr.WriteByte('[')
	for i, d := range docs {
		if i > 0 {
			arr.WriteByte(',')
		}
		if err := json.Compact(&arr, d); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
	}
	arr.WriteByte(']')
	once, err := json.Marshal(arr.String())
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(once))
}

// NewTriggerRequest builds the invocation the host sends for a Cosmos DB
// trigger batch: Data[name] double string-encoded, Metadata only sys.
func NewTriggerRequest(function, name string, docs []json.RawMessage, now time.Time, guid string) (*InvokeRequest, error) {
	data, err := EncodeDocuments(docs)
	if err != nil {
		return nil, err
	}
	sys, err := json.Marshal(Sys{MethodName: function, UtcNow: now.UTC().Format(time.RFC3339Nano), RandGUID: guid})
	if err != nil {
		return nil, err
	}
	return &InvokeRequest{
		Data:     map[string]json.RawMessage{name: data},
		Metadata: map[string]json.RawMessage{"sys": sys},
	}, nil
}

// WriteResponse writes resp as the host requires: 200, application/json.
func WriteResponse(w http.ResponseWriter, resp InvokeResponse) {
	if resp.Outputs == nil {
		resp.Outputs = map[string]any{}
	}
	if resp.Logs == nil {
		resp.Logs = []string{}
	}
	b, err := json.Marshal(resp)
	if err != nil {
		problem.Write(w, todo.Wrap(todo.Internal, err, "response does not encode"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// DecodeResponse reads a handler's reply as the host would: only a 2xx
// JSON reply completes an invocation.
func DecodeResponse(resp *http.Response) (*InvokeResult, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("invocation failed: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	if ct := resp.Header.Get("Content-Type"); !isJSONType(ct) {
		return nil, fmt.Errorf("invocation failed: Content-Type %q is not application/json", ct)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("invocation never completes: empty response body")
	}
	var out InvokeResult
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("invocation failed: response is not a JSON object: %w", err)
	}
	return &out, nil
}

func isJSONType(ct string) bool {
	ct, _, _ = strings.Cut(ct, ";")
	switch strings.ToLower(strings.TrimSpace(ct)) {
	case "application/json", "text/json":
		return true
	}
	return false
}
