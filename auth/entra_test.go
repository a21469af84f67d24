package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth/authtest"
)

const testAudience = "api://todoaudit-test"

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startEntra discovers idp and waits until its keys are loaded.
func startEntra(t *testing.T, idp *authtest.Provider, minRefresh time.Duration) *entra {
	t.Helper()
	e := newEntra(idp.Issuer, testAudience, quiet)
	e.minKeyRefresh = minRefresh
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go e.run(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for e.keys.Load() == nil || !e.keys.Load().loaded() {
		if time.Now().After(deadline) {
			t.Fatal("the provider was not discovered")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return e
}

func request(token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/todos", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// Forged tokens naming unknown key ids fetch the key set at most once per
// interval, however many arrive.
func TestUnknownKeyIDsAreRateLimited(t *testing.T) {
	const interval = 2 * time.Second
	key := authtest.NewKey(t, "k1")
	idp := authtest.Start(t, key)
	e := startEntra(t, idp, interval)
	base := idp.KeyFetches.Load()

	forged := make([]string, 50)
	for i := range forged {
		forged[i] = authtest.Sign(t, &authtest.Key{ID: fmt.Sprintf("forged-%d", i), Private: key.Private}, idp.Claims(testAudience, "u"))
	}
	start := time.Now()
	var wg sync.WaitGroup
	var refused atomic.Int64
	for _, token := range forged {
		wg.Go(func() {
			if _, err := e.identify(request(token), User); todo.IsKind(err, todo.Unauthorized) {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if refused.Load() != 50 {
		t.Fatalf("%d of 50 forged tokens refused with 401", refused.Load())
	}
	elapsed := time.Since(start)
	fetched := idp.KeyFetches.Load() - base
	if limit := 1 + int64(elapsed/interval); fetched < 1 || fetched > limit {
		t.Fatalf("50 unknown key ids fetched the key set %d times in %v, want 1 to %d", fetched, elapsed, limit)
	}
	// The key id that missed last, again within the interval: refused at
	// once, without a fetch.
	e.keys.Load().mu.Lock()
	var missed string
	for kid := range e.keys.Load().misses {
		missed = kid
	}
	e.keys.Load().mu.Unlock()
	again := authtest.Sign(t, &authtest.Key{ID: missed, Private: key.Private}, idp.Claims(testAudience, "u"))
	start = time.Now()
	if _, err := e.identify(request(again), User); !todo.IsKind(err, todo.Unauthorized) {
		t.Fatalf("forged token: %v", err)
	}
	if d := time.Since(start); d > interval/2 || idp.KeyFetches.Load()-base != fetched {
		t.Fatalf("a key id that just missed waited %v and fetched again", d)
	}
	// A bad signature under a known key id never fetches.
	impostor := &authtest.Key{ID: "k1", Private: authtest.NewKey(t, "x").Private}
	for range 10 {
		bad := authtest.Sign(t, impostor, idp.Claims(testAudience, "u"))
		if _, err := e.identify(request(bad), User); !todo.IsKind(err, todo.Unauthorized) {
			t.Fatalf("bad signature: %v", err)
		}
	}
	if got := idp.KeyFetches.Load() - base; got != fetched {
		t.Fatalf("bad signatures fetched the key set: %d fetches", got-fetched)
	}
}

// Keys the provider withdraws stop verifying once the set is fetched again.
func TestRotationAndWithdrawal(t *testing.T) {
	k1, k2 := authtest.NewKey(t, "k1"), authtest.NewKey(t, "k2")
	idp := authtest.Start(t, k1)
	e := startEntra(t, idp, 10*time.Millisecond)
	accept := func(key *authtest.Key) error {
		c, err := e.identify(request(authtest.Sign(t, key, idp.Claims(testAudience, "u1"))), User)
		if err == nil && c.User != "u1" {
			t.Fatalf("caller %+v", c)
		}
		return err
	}
	if err := accept(k1); err != nil {
		t.Fatal(err)
	}
	if err := accept(k2); !todo.IsKind(err, todo.Unauthorized) {
		t.Fatalf("an unpublished key: %v", err)
	}
	idp.Publish(k1, k2)
	time.Sleep(20 * time.Millisecond)
	if err := accept(k2); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	idp.Publish(k2)
	time.Sleep(20 * time.Millisecond)
	if err := e.keys.Load().refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := accept(k1); !todo.IsKind(err, todo.Unauthorized) {
		t.Fatalf("a withdrawn key: %v", err)
	}
}

// exp and nbf tolerate two minutes of clock skew, not more.
func TestClockSkew(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	at := func(d time.Duration) *float64 { f := float64(now.Add(d).Unix()); return &f }
	cases := []struct {
		exp, nbf *float64
		ok       bool
	}{
		{at(time.Hour), at(0), true},
		{at(-119 * time.Second), nil, true},
		{at(-121 * time.Second), nil, false},
		{at(time.Hour), at(119 * time.Second), true},
		{at(time.Hour), at(121 * time.Second), false},
		{nil, nil, false},
	}
	for _, tc := range cases {
		c := claims{OID: "u", Expiry: tc.exp, NotBefore: tc.nbf}
		if err := c.check(now); (err == nil) != tc.ok {
			t.Errorf("exp %v nbf %v: %v, want ok=%v", tc.exp, tc.nbf, err, tc.ok)
		}
	}
	huge := 1e300
	if err := (&claims{OID: "u", Expiry: &huge, NotBefore: &huge}).check(now); err == nil {
		t.Error("an nbf beyond any date was accepted")
	}
}

// Discovery is retried until the provider answers; meanwhile tokens get 503
// and requests without one 401.
func TestDiscoveryRetries(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	idp := authtest.Start(t, key)
	var failing atomic.Bool
	failing.Store(true)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		resp, err := http.Get(idp.Issuer + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(flaky.Close)
	// Every request to the provider goes through the flaky front.
	e := newEntra(idp.Issuer, testAudience, quiet)
	e.client = &http.Client{Transport: redirectTo(flaky.URL), Timeout: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.run(ctx)

	token := authtest.Sign(t, key, idp.Claims(testAudience, "u1"))
	if _, err := e.identify(request(token), User); !todo.IsKind(err, todo.Unavailable) || todo.RetryAfter(err) == 0 {
		t.Fatalf("before discovery: %v, want unavailable with a retry hint", err)
	}
	if _, err := e.identify(httptest.NewRequest(http.MethodGet, "/api/todos", nil), User); !errors.Is(err, errNoCredentials) {
		t.Fatalf("no token before discovery: %v", err)
	}
	failing.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := e.identify(request(token), User)
		if err == nil {
			break
		}
		if !todo.IsKind(err, todo.Unavailable) || time.Now().After(deadline) {
			t.Fatalf("after the provider came back: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// redirectTo sends every request to base, keeping its path.
type redirectTo string

func (b redirectTo) RoundTrip(r *http.Request) (*http.Response, error) {
	u := *r.URL
	u.Scheme, u.Host = "http", string(b)[len("http://"):]
	r2 := r.Clone(r.Context())
	r2.URL, r2.Host = &u, u.Host
	return http.DefaultTransport.RoundTrip(r2)
}

func TestBearerToken(t *testing.T) {
	cases := []struct {
		headers []string
		token   string
		missing bool
	}{
		{nil, "", true},
		{[]string{"Basic YTpi"}, "", true},
		{[]string{"Bearer"}, "", false},
		{[]string{"Bearer  "}, "", false},
		{[]string{"bearer abc"}, "abc", false},
		{[]string{"Bearer abc", "Bearer def"}, "", false},
	}
	for _, tc := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		token, err := bearerToken(r)
		if token != tc.token || errors.Is(err, errNoCredentials) != tc.missing || (tc.token == "") != (err != nil) {
			t.Errorf("%q: %q %v", tc.headers, token, err)
		}
	}
}
