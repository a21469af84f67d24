package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// W4: the test server runs every operation of a batch whatever the one
// before it answered, and undoes none, where Cosmos DB runs a batch all or
// nothing. The handler relies on that (a todo change and its version
// document commit together, and the version document's create is what
// stops a write at a version that exists), so the fixes run a batch's
// operations one at a time, one batch per logical partition at a time,
// and when one fails they undo the ones before it from the documents as
// they were, and answer the rest 424 Failed Dependency, as Cosmos DB does.
// What a concurrent single-document write sees in between is not
// isolated; the handler writes todos and version documents in batches
// only.

// batchOp is one operation of a batch request as azcosmos sends it.
type batchOp struct {
	Type string          `json:"operationType"`
	ID   string          `json:"id"`
	Body json.RawMessage `json:"resourceBody"`
}

// partitionLocks serialises the batches of one logical partition.
var partitionLocks sync.Map // collection path + partition key → *sync.Mutex

func (f serverFixes) atomicBatch(r *http.Request) (*http.Response, error) {
	body := readBody(r)
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return f.next.Do(r)
	}
	ops := make([]batchOp, len(raw))
	for i, op := range raw {
		if err := json.Unmarshal(op, &ops[i]); err != nil {
			return f.next.Do(r)
		}
	}
	// The server finishes a batch whether or not its client stays: a
	// handler killed mid-batch must not leave half of it.
	r = r.WithContext(context.WithoutCancel(r.Context()))
	mu, _ := partitionLocks.LoadOrStore(r.URL.Path+"\x00"+r.Header.Get("x-ms-documentdb-partitionkey"), &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	docs := strings.TrimSuffix(r.URL.String(), "/")
	// The documents the batch changes, as they are before it.
	before := make([][]byte, len(ops))
	for i, op := range ops {
		id := op.ID
		if id == "" {
			var d struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(op.Body, &d)
			id, ops[i].ID = d.ID, d.ID
		}
		if op.Type == "Create" || op.Type == "Read" {
			continue
		}
		resp, err := f.single(r, http.MethodGet, docs+"/"+id, nil)
		if err != nil {
			return nil, err
		}
		if b, _ := io.ReadAll(resp.Body); resp.StatusCode == http.StatusOK {
			before[i] = b
		}
		resp.Body.Close()
	}
	results := make([]json.RawMessage, 0, len(ops))
	var last *http.Response
	for i, op := range raw {
		one, _ := json.Marshal([]json.RawMessage{op})
		req := r.Clone(r.Context())
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(one)), int64(len(one))
		resp, err := f.next.Do(req)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var res []json.RawMessage
		var status []struct {
			StatusCode int `json:"statusCode"`
		}
		if resp.StatusCode/100 != 2 || json.Unmarshal(b, &res) != nil || json.Unmarshal(b, &status) != nil || len(res) != 1 {
			f.undo(r, docs, ops[:i], before)
			resp.Body = io.NopCloser(bytes.NewReader(b))
			return resp, nil
		}
		results = append(results, res[0])
		last = resp
		if status[0].StatusCode/100 != 2 {
			f.undo(r, docs, ops[:i], before)
			for range raw[i+1:] {
				results = append(results, json.RawMessage(`{"statusCode":424,"requestCharge":0}`))
			}
			break
		}
	}
	b, _ := json.Marshal(results)
	last.Body, last.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	last.Header.Del("Content-Length")
	return last, nil
}

// undo reverts the operations done, newest first, to the documents as
// they were before the batch.
func (f serverFixes) undo(r *http.Request, docs string, done []batchOp, before [][]byte) {
	for i := len(done) - 1; i >= 0; i-- {
		op := done[i]
		var resp *http.Response
		var err error
		switch {
		case op.Type == "Read":
			continue
		case before[i] == nil:
			resp, err = f.single(r, http.MethodDelete, docs+"/"+op.ID, nil)
		case op.Type == "Delete":
			resp, err = f.single(r, http.MethodPost, docs, before[i])
		default:
			resp, err = f.single(r, http.MethodPut, docs+"/"+op.ID, before[i])
		}
		if err == nil {
			resp.Body.Close()
		}
	}
}

// single sends one document request in the batch's partition.
func (f serverFixes) single(r *http.Request, method, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(r.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"x-ms-documentdb-partitionkey", "x-ms-version", "x-ms-date", "Authorization"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return f.Do(req)
}
