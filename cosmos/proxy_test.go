package cosmos

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// proxy serves the test server to processes that cannot install the
// test-only transport: handler processes point COSMOS_ENDPOINT at it, and
// it applies the server fixes (W1-W4) to their requests.
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
	resp, err := p.forward(r, body)
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
