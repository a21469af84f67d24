package blobanchors

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/todoaudit/todo/transparency"
)

// fakeBlob is the part of the Blob service the anchors use, with its WORM
// behaviour: a blob once written is never replaced or deleted.
type fakeBlob struct {
	mu    sync.Mutex
	blobs map[string][]byte
	// ignoreCondition answers a put of an existing blob as the policy does,
	// whatever its If-None-Match.
	ignoreCondition bool
}

func (f *fakeBlob) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	name, isBlob := strings.CutPrefix(r.URL.Path, "/anchors/")
	q := r.URL.Query()
	fail := func(status int, code string) {
		w.Header().Set("x-ms-error-code", code)
		w.WriteHeader(status)
	}
	// A request authorized by a token must state a version of the API;
	// a put must say what kind of blob it makes.
	if r.Header.Get("x-ms-version") < "2017-11-09" || (r.Method == http.MethodPut && r.Header.Get("x-ms-blob-type") != "BlockBlob") {
		fail(http.StatusBadRequest, "MissingRequiredHeader")
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/anchors" && q.Get("comp") == "list" && q.Get("restype") == "container":
		var names []string
		for n := range f.blobs {
			if strings.HasPrefix(n, q.Get("prefix")) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		if m, err := strconv.Atoi(q.Get("maxresults")); err == nil && m < len(names) {
			names = names[:m]
		}
		type item struct {
			Name string `xml:"Name"`
		}
		out := struct {
			XMLName xml.Name `xml:"EnumerationResults"`
			Blobs   []item   `xml:"Blobs>Blob"`
		}{}
		for _, n := range names {
			out.Blobs = append(out.Blobs, item{n})
		}
		w.Header().Set("Content-Type", "application/xml")
		_ = xml.NewEncoder(w).Encode(out)
	case r.Method == http.MethodPut && isBlob:
		if _, ok := f.blobs[name]; ok {
			if r.Header.Get("If-None-Match") == "*" && !f.ignoreCondition {
				fail(http.StatusConflict, "BlobAlreadyExists")
			} else {
				fail(http.StatusConflict, "BlobImmutableDueToPolicy")
			}
			return
		}
		b, _ := io.ReadAll(r.Body)
		f.blobs[name] = b
		w.Header().Set("ETag", `"1"`)
		w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusCreated)
	case r.Method == http.MethodGet && isBlob:
		b, ok := f.blobs[name]
		if !ok {
			fail(http.StatusNotFound, "BlobNotFound")
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Header().Set("x-ms-blob-type", "BlockBlob")
		_, _ = w.Write(b)
	default:
		fail(http.StatusForbidden, "AuthorizationPermissionMismatch")
	}
}

type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// Checkpoints are created once each, the newest is found with one listed
// name, and a second checkpoint of a size anchored already is refused with
// the one anchored.
func TestAnchors(t *testing.T) {
	f := &fakeBlob{blobs: map[string][]byte{}}
	srv := httptest.NewTLSServer(f)
	defer srv.Close()
	o := &policy.ClientOptions{Transport: srv.Client()}
	a, err := New(srv.URL+"/anchors", staticToken{}, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if b, err := a.Newest(ctx); err != nil || b != nil {
		t.Fatalf("empty container: %q %v", b, err)
	}
	for _, n := range []int64{1, 300, 2} {
		if _, err := a.Put(ctx, n, []byte("checkpoint "+strconv.FormatInt(n, 10))); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := a.Newest(ctx); err != nil || string(b) != "checkpoint 300" {
		t.Fatalf("newest: %q %v", b, err)
	}
	existing, err := a.Put(ctx, 300, []byte("a fork"))
	if !errors.Is(err, transparency.ErrAnchored) || string(existing) != "checkpoint 300" {
		t.Fatalf("second checkpoint of size 300: %q %v", existing, err)
	}
	if string(f.blobs[blobName(300)]) != "checkpoint 300" {
		t.Fatal("an anchored checkpoint was replaced")
	}
}

// A blob the immutability policy holds is an anchored checkpoint; any
// other refusal is an error, never a checkpoint.
func TestAnchorsRefused(t *testing.T) {
	f := &fakeBlob{blobs: map[string][]byte{blobName(7): []byte("checkpoint 7")}}
	srv := httptest.NewTLSServer(f)
	defer srv.Close()
	a, err := New(srv.URL+"/anchors", staticToken{}, &policy.ClientOptions{Transport: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Without If-None-Match the fake answers as the policy does.
	f.ignoreCondition = true
	if existing, err := a.Put(ctx, 7, []byte("a fork")); !errors.Is(err, transparency.ErrAnchored) || string(existing) != "checkpoint 7" {
		t.Fatalf("held by the policy: %q %v", existing, err)
	}
	other, err := New(srv.URL+"/other", staticToken{}, &policy.ClientOptions{Transport: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Put(ctx, 8, []byte("checkpoint 8")); err == nil || errors.Is(err, transparency.ErrAnchored) {
		t.Fatalf("put refused for want of permission: %v", err)
	}
	if b, err := other.Newest(ctx); err == nil {
		t.Fatalf("listing refused for want of permission: %q", b)
	}
}

func TestNewRefusesWhatIsNotAContainer(t *testing.T) {
	for _, u := range []string{"", "anchors", "https://account.blob.core.windows.net", "https://account.blob.core.windows.net/", "https://account.blob.core.windows.net/a/b", "https://account.blob.core.windows.net/a?sv=1", "ftp://account/a"} {
		if _, err := New(u, staticToken{}, nil); err == nil {
			t.Errorf("%q: accepted", u)
		}
	}
	if _, err := New("https://account.blob.core.windows.net/anchors/", staticToken{}, nil); err != nil {
		t.Errorf("a container URL with a trailing slash: %v", err)
	}
}
