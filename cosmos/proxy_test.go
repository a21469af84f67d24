package cosmos

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// proxy serves the test server to processes that cannot install the
// test-only transport: handler processes point COSMOS_ENDPOINT at it. It
// applies the server fixes (W1-W3) and runs a batch's operations one at a
// time, stopping at the first that fails, as Cosmos DB's transactional
// batch does: the test server runs every operation of a batch whatever the
// one before it answered, so a batch whose todo update lost an ETag race
// would still create its version document.
type proxy struct {
	upstream string
	fixes    serverFixes
}

// startProxy serves a proxy to endpoint on a loopback port until the test
// ends, and returns its endpoint.
func startProxy(t testing.TB, endpoint string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &proxy{upstream: strings.TrimSuffix(endpoint, "/"), fixes: serverFixes{next: http.DefaultClient}}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var resp *http.Response
	if r.Method == http.MethodPost && r.Header.Get("x-ms-cosmos-is-batch-request") != "" {
		resp, err = p.batch(r, body)
	} else {
		resp, err = p.forward(r, body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if k != "Content-Length" {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// forward sends r, with body, to the test server through the fixes.
func (p *proxy) forward(r *http.Request, body []byte) (*http.Response, error) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	out.Header.Del("Accept-Encoding")
	resp, err := p.fixes.Do(out)
	if err != nil || r.URL.Path != "/" {
		return resp, err
	}
	// The account names its own address as the endpoint of its regions,
	// and the SDK sends everything after this read there: name the proxy.
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	b = bytes.ReplaceAll(b, []byte(strings.TrimPrefix(p.upstream, "http://")), []byte(r.Host))
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return resp, nil
}

// batch runs the operations of a batch request one by one; after the
// first that fails, the rest answer 424 Failed Dependency, as in a
// Cosmos DB batch that failed.
func (p *proxy) batch(r *http.Request, body []byte) (*http.Response, error) {
	var ops []json.RawMessage
	if err := json.Unmarshal(body, &ops); err != nil {
		return p.forward(r, body)
	}
	results := make([]json.RawMessage, 0, len(ops))
	var last *http.Response
	failed := false
	for _, op := range ops {
		if failed {
			results = append(results, json.RawMessage(`{"statusCode":424,"requestCharge":0}`))
			continue
		}
		one, _ := json.Marshal([]json.RawMessage{op})
		resp, err := p.forward(r, one)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var res []struct {
			StatusCode int `json:"statusCode"`
		}
		if resp.StatusCode/100 != 2 || json.Unmarshal(b, &res) != nil || len(res) != 1 {
			resp.Body = io.NopCloser(bytes.NewReader(b))
			return resp, nil // the request itself failed: pass it on
		}
		var raw []json.RawMessage
		_ = json.Unmarshal(b, &raw)
		results = append(results, raw[0])
		failed = res[0].StatusCode/100 != 2
		last = resp
	}
	b, _ := json.Marshal(results)
	last.Body = io.NopCloser(bytes.NewReader(b))
	last.ContentLength = int64(len(b))
	return last, nil
}
