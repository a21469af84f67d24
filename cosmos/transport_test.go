package cosmos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/todoaudit/todo/store"
)

// readBody reads and restores a request's body.
func readBody(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	return b
}

// response builds a Cosmos-style JSON response to r.
func response(r *http.Request, status int, body string, headers ...string) *http.Response {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("x-ms-request-charge", "1")
	h.Set("x-ms-activity-id", "00000000-0000-0000-0000-000000000000")
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	return &http.Response{
		StatusCode:    status,
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}
}

// serverFixes is the test-only transport that works around four protocol
// bugs of @vercel/cosmosdb-server 1.0.1 with azcosmos v1.5.0:
//
//	W1  a point read of a missing item answers 500 "Cannot read properties
//	    of undefined": it becomes 404 NotFound;
//	W2  pkranges answers "id": 0 (a number): it becomes "0";
//	W3  the server wants each batch operation's partitionKey in the body,
//	    azcosmos sends it only as a header: it is copied into every
//	    operation;
//	W4  batches are not atomic: see atomicBatch.
type serverFixes struct {
	next policy.Transporter
}

var (
	docPath     = regexp.MustCompile(`/docs/[^/]+$`)
	numericPKID = regexp.MustCompile(`"id":\s*(\d+)`)
)

func (f serverFixes) Do(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Header.Get("x-ms-cosmos-is-batch-request") != "" {
		var ops []map[string]any
		if err := json.Unmarshal(readBody(r), &ops); err == nil {
			for _, op := range ops {
				op["partitionKey"] = r.Header.Get("x-ms-documentdb-partitionkey") // W3
			}
			b, _ := json.Marshal(ops)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		return f.atomicBatch(r) // W4
	}
	resp, err := f.next.Do(r)
	if err != nil {
		return resp, err
	}
	switch {
	case r.Method == http.MethodGet && docPath.MatchString(r.URL.Path) && resp.StatusCode == http.StatusInternalServerError:
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if bytes.Contains(body, []byte("Cannot read properties of undefined")) { // W1
			return response(r, http.StatusNotFound, `{"code":"NotFound","message":"Entity with the specified id does not exist in the system."}`), nil
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	case strings.HasSuffix(r.URL.Path, "/pkranges") && resp.StatusCode == http.StatusOK:
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		body = numericPKID.ReplaceAll(body, []byte(`"id":"$1"`)) // W2
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

// recorded is one request as a recorder saw it.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func (r recorded) String() string { return r.Method + " " + r.Path }

// recorder is a transport that records (and counts) every request it
// passes on.
type recorder struct {
	next policy.Transporter

	mu   sync.Mutex
	reqs []recorded
}

func (rec *recorder) Do(r *http.Request) (*http.Response, error) {
	body := readBody(r)
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	rec.mu.Unlock()
	return rec.next.Do(r)
}

// since returns the requests recorded after the first n.
func (rec *recorder) since(n int) []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]recorded(nil), rec.reqs[n:]...)
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// isMetadata reports a container-metadata request: the container itself or
// its partition key ranges.
func isMetadata(r recorded) bool {
	return r.Method == http.MethodGet && (regexp.MustCompile(`/colls/[^/]+/?$`).MatchString(r.Path) || strings.HasSuffix(r.Path, "/pkranges"))
}

// fakeCosmos is a scripted Cosmos DB account, enough for azcosmos to start
// (account, database, containers, partition key ranges); requests for
// documents go to docs, which the test scripts.
type fakeCosmos struct {
	t *testing.T

	mu         sync.Mutex
	database   string
	dbExists   bool
	containers map[string]string // name → properties JSON
	// docs answers requests for documents; it runs with mu held and must
	// not call back into the fake.
	docs func(r *http.Request, body []byte) *http.Response
}

func newFake(t *testing.T, database string) *fakeCosmos {
	return &fakeCosmos{t: t, database: database, containers: map[string]string{}}
}

// addContainer makes a container exist with the given key paths.
func (f *fakeCosmos) addContainer(name string, paths ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dbExists = true
	kind := "Hash"
	if len(paths) > 1 {
		kind = "MultiHash"
	}
	b, _ := json.Marshal(map[string]any{
		"id": name, "_rid": "rid-" + name, "_etag": `"1"`,
		"partitionKey": map[string]any{"paths": paths, "kind": kind, "version": 2},
		"defaultTtl":   -1,
	})
	f.containers[name] = string(b)
}

func (f *fakeCosmos) Do(r *http.Request) (*http.Response, error) {
	body := readBody(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	dbPath := "/dbs/" + f.database
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "" && r.Method == http.MethodGet:
		host := r.URL.Scheme + "://" + r.URL.Host + "/"
		return response(r, 200, fmt.Sprintf(`{"id":"fake","writableLocations":[{"name":"local","databaseAccountEndpoint":%q}],"readableLocations":[{"name":"local","databaseAccountEndpoint":%q}],"enableMultipleWriteLocations":false}`, host, host)), nil
	case p == "/dbs" && r.Method == http.MethodPost:
		if f.dbExists {
			return response(r, 409, `{"code":"Conflict"}`), nil
		}
		f.dbExists = true
		return response(r, 201, fmt.Sprintf(`{"id":%q,"_rid":"db"}`, f.database)), nil
	case p == dbPath && r.Method == http.MethodGet:
		if !f.dbExists {
			return response(r, 404, `{"code":"NotFound"}`), nil
		}
		return response(r, 200, fmt.Sprintf(`{"id":%q,"_rid":"db"}`, f.database)), nil
	case p == dbPath+"/colls" && r.Method == http.MethodPost:
		var props map[string]any
		_ = json.Unmarshal(body, &props)
		name, _ := props["id"].(string)
		if _, ok := f.containers[name]; ok {
			return response(r, 409, `{"code":"Conflict"}`), nil
		}
		props["_rid"] = "rid-" + name
		b, _ := json.Marshal(props)
		f.containers[name] = string(b)
		return response(r, 201, string(b)), nil
	case strings.HasPrefix(p, dbPath+"/colls/"):
		rest := strings.Split(strings.TrimPrefix(p, dbPath+"/colls/"), "/")
		props, ok := f.containers[rest[0]]
		if !ok {
			return response(r, 404, `{"code":"NotFound"}`, "x-ms-substatus", subStatusOwnerMissing), nil
		}
		switch {
		case len(rest) == 1 && r.Method == http.MethodGet:
			return response(r, 200, props), nil
		case len(rest) == 2 && rest[1] == "pkranges":
			if r.Header.Get("If-None-Match") != "" {
				return response(r, 304, "", "etag", `"pk1"`), nil
			}
			return response(r, 200, fmt.Sprintf(`{"_rid":"rid-%s","PartitionKeyRanges":[{"id":"0","minInclusive":"","maxExclusive":"FF","parents":[]}],"_count":1}`, rest[0]), "etag", `"pk1"`), nil
		case len(rest) >= 2 && rest[1] == "docs" && f.docs != nil:
			if resp := f.docs(r, body); resp != nil {
				return resp, nil
			}
		}
	}
	f.t.Errorf("fake Cosmos DB: unscripted request %s %s", r.Method, r.URL.Path)
	return response(r, 400, `{"code":"BadRequest","message":"unscripted"}`), nil
}

var fakeHosts sync.Map

// fakeEndpoint is a distinct account endpoint per test: azcosmos shares its
// caches between clients of one endpoint.
func fakeEndpoint(t *testing.T) string {
	host := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	for i := 0; ; i++ {
		h := fmt.Sprintf("%s-%d", host, i)
		if _, loaded := fakeHosts.LoadOrStore(h, true); !loaded {
			return "https://" + h + ".documents.azure.com:443/"
		}
	}
}

// fastRetries keeps the SDK's retry loops short in tests.
func fastRetries(t policy.Transporter) *azcosmos.ClientOptions {
	return &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: t,
		Retry:     policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: 50 * time.Millisecond},
	}}
}

// openFake opens a store with key auth on a fake account holding the
// given containers, recording every request.
func openFake(t *testing.T, f *fakeCosmos, specs ...store.ContainerSpec) (*Store, *recorder) {
	t.Helper()
	for _, s := range specs {
		f.addContainer(s.Name, s.PartitionKeyPaths...)
	}
	rec := &recorder{next: f}
	s, err := Open(t.Context(), Config{Endpoint: fakeEndpoint(t), Key: emulatorKey, Database: f.database, Containers: specs, ClientOptions: fastRetries(rec)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, rec
}
