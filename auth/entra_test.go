package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth/authtest"
)

const testAudience = "api://todoaudit-test"

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// The public causes health hears.
const (
	healthStarting  = "the identity provider is being discovered"
	healthNoKeys    = "the identity provider's keys cannot be fetched, so bearer tokens cannot be verified"
	healthKeptKeys  = "the identity provider's keys cannot be fetched; bearer tokens are verified with the keys fetched before"
	healthOK        = "ok"
	waitForHealthUp = 10 * time.Second
)

// recorder is the health the entra mode reports to: the latest cause, or
// ok.
type recorder struct {
	mu      sync.Mutex
	state   string
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) set(state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state = state
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) Starting(source, cause string) { r.set(cause) }

func (r *recorder) Report(source string, err error) {
	if err == nil {
		r.set(healthOK)
		return
	}
	r.set(todo.Message(err))
}

func (r *recorder) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

// wait waits until the state is want.
func (r *recorder) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(waitForHealthUp)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		state, changed := r.state, r.changed
		r.mu.Unlock()
		if state == want {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("health %q, want %q", state, want)
		}
	}
}

// fixture is the entra mode against a local provider, on a fake clock.
type fixture struct {
	e      *entra
	idp    *authtest.Provider
	clock  *authtest.Clock
	health *recorder
}

// startEntra starts the entra mode against idp on a fake clock, without
// waiting for discovery.
func startEntra(t *testing.T, idp *authtest.Provider) *fixture {
	t.Helper()
	f := &fixture{idp: idp, clock: authtest.NewClock(time.Now()), health: newRecorder()}
	idp.Now = f.clock.Now
	f.e = newEntra(idp.Issuer, testAudience, quiet, &Options{Health: f.health, Clock: f.clock})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.e.start(ctx)
	return f
}

// discovered starts the entra mode and waits until its keys are loaded
// and their upkeep waits for the next daily fetch.
func discovered(t *testing.T, idp *authtest.Provider) *fixture {
	t.Helper()
	f := startEntra(t, idp)
	f.health.wait(t, healthOK)
	if !f.e.keys.Load().loaded() {
		t.Fatal("health is ok before the keys are loaded")
	}
	f.clock.WaitStarted(t, 1)
	return f
}

// token is a valid token of user oid signed by key.
func (f *fixture) token(t *testing.T, key *authtest.Key, oid string, roles ...string) string {
	return authtest.Sign(t, key, f.idp.Claims(testAudience, oid, roles...))
}

func request(token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/todos", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// within runs f and fails t if it has not returned after five seconds: a
// call that should not wait on the fake clock.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call waits")
	}
}

// Forged tokens naming unknown key ids fetch the key set once per
// interval, however many arrive; a key id that just missed is refused at
// once, and a bad signature never fetches.
func TestUnknownKeyIDsAreRateLimited(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	f := discovered(t, authtest.Start(t, key))
	base := f.idp.KeyFetches.Load()

	forged := make([]string, 50)
	for i := range forged {
		forged[i] = authtest.Sign(t, &authtest.Key{ID: fmt.Sprintf("forged-%d", i), Private: key.Private}, f.idp.Claims(testAudience, "u"))
	}
	// All 50 wait for the interval since the discovery's fetch to pass.
	started := f.clock.Started()
	var wg sync.WaitGroup
	var refused atomic.Int64
	for _, token := range forged {
		wg.Go(func() {
			if _, err := f.e.identify(request(token), User); todo.IsKind(err, todo.Unauthorized) {
				refused.Add(1)
			}
		})
	}
	f.clock.WaitStarted(t, started+len(forged))
	if got := f.idp.KeyFetches.Load() - base; got != 0 {
		t.Fatalf("%d fetches within the interval", got)
	}
	f.clock.Advance(KeyRefreshInterval)
	wg.Wait()
	if refused.Load() != 50 {
		t.Fatalf("%d of 50 forged tokens refused with 401", refused.Load())
	}
	if got := f.idp.KeyFetches.Load() - base; got != 1 {
		t.Fatalf("50 unknown key ids in one interval fetched the key set %d times, want 1", got)
	}
	// Every key id that missed, again within the interval: refused at
	// once, without a fetch.
	within(t, func() {
		for _, token := range forged {
			if _, err := f.e.identify(request(token), User); !todo.IsKind(err, todo.Unauthorized) {
				t.Errorf("forged token again: %v", err)
			}
		}
	})
	// A bad signature under a known key id never fetches.
	impostor := &authtest.Key{ID: "k1", Private: authtest.NewKey(t, "x").Private}
	for range 10 {
		if _, err := f.e.identify(request(f.token(t, impostor, "u")), User); !todo.IsKind(err, todo.Unauthorized) {
			t.Fatalf("bad signature: %v", err)
		}
	}
	if got := f.idp.KeyFetches.Load() - base; got != 1 {
		t.Fatalf("bad signatures fetched the key set: %d fetches", got-1)
	}
}

// A rotated-in key verifies once the set is fetched again; keys the
// provider withdraws stop verifying once the daily fetch has run.
func TestRotationAndWithdrawal(t *testing.T) {
	k1, k2 := authtest.NewKey(t, "k1"), authtest.NewKey(t, "k2")
	f := discovered(t, authtest.Start(t, k1))
	accept := func(key *authtest.Key) error {
		c, err := f.e.identify(request(f.token(t, key, "u1")), User)
		if err == nil && c.User != "u1" {
			t.Fatalf("caller %+v", c)
		}
		return err
	}
	if err := accept(k1); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(KeyRefreshInterval)
	if err := accept(k2); !todo.IsKind(err, todo.Unauthorized) {
		t.Fatalf("an unpublished key: %v", err)
	}
	f.idp.Publish(k1, k2)
	f.clock.Advance(KeyRefreshInterval)
	if err := accept(k2); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	// The daily fetch drops k1.
	f.idp.Publish(k2)
	started := f.clock.Started()
	f.clock.Advance(keyMaxAge)
	f.clock.WaitStarted(t, started+1)
	f.clock.Advance(KeyRefreshInterval)
	if err := accept(k1); !todo.IsKind(err, todo.Unauthorized) {
		t.Fatalf("a withdrawn key: %v", err)
	}
}

// The key set is fetched again a day after its last fetch; when a fetch
// fails (that one or one an unknown key id made) it is retried in the
// background, once per back-off step however long the outage, and health
// is ok again within the back-off's cap of the provider's return. Tokens
// signed by a key already fetched are accepted throughout.
func TestKeySetOutageAndRecovery(t *testing.T) {
	key, rotated := authtest.NewKey(t, "k1"), authtest.NewKey(t, "k2")
	f := discovered(t, authtest.Start(t, key))
	accepted := func(t *testing.T, when string) {
		t.Helper()
		if c, err := f.e.identify(request(f.token(t, key, "u1")), User); err != nil || c.User != "u1" {
			t.Fatalf("%s: a token of a fetched key: %+v %v", when, c, err)
		}
	}
	// step advances the clock by d, waits for the key set's upkeep to
	// wait again and checks the fetches it made.
	step := func(t *testing.T, d time.Duration, fetches int64) {
		t.Helper()
		before, started := f.idp.KeyFetches.Load(), f.clock.Started()
		f.clock.Advance(d)
		f.clock.WaitStarted(t, started+1)
		if got := f.idp.KeyFetches.Load() - before; got != fetches {
			t.Fatalf("%d fetches after %v, want %d", got, d, fetches)
		}
	}
	outage := func(t *testing.T, trigger func()) {
		t.Helper()
		f.idp.KeysDown(true)
		trigger()
		if got := f.health.get(); got != healthKeptKeys {
			t.Fatalf("health during the outage: %q", got)
		}
		accepted(t, "during the outage")
		// Ten minutes of outage: one attempt per back-off step.
		for elapsed := time.Duration(0); elapsed < 10*time.Minute; elapsed += retryPolicy.Max {
			step(t, retryPolicy.Max, 1)
			accepted(t, "during the outage")
		}
		if got := f.health.get(); got != healthKeptKeys {
			t.Fatalf("health during the outage: %q", got)
		}
		f.idp.KeysDown(false)
		step(t, retryPolicy.Max, 1)
		if got := f.health.get(); got != healthOK {
			t.Fatalf("health %v after the provider is back: %q", retryPolicy.Max, got)
		}
		accepted(t, "after the outage")
		// Once fetched, the set is fetched again a day later.
		f.clock.Advance(keyMaxAge - time.Second)
		step(t, time.Second, 1)
	}

	t.Run("the daily fetch fails", func(t *testing.T) {
		outage(t, func() { step(t, keyMaxAge, 1) })
	})
	t.Run("an unknown key id's fetch fails", func(t *testing.T) {
		outage(t, func() {
			started := f.clock.Started()
			f.clock.Advance(KeyRefreshInterval)
			_, err := f.e.identify(request(f.token(t, rotated, "u1")), User)
			if !todo.IsKind(err, todo.Unavailable) {
				t.Fatalf("an unknown key id while the key set is down: %v, want 503", err)
			}
			f.clock.WaitStarted(t, started+1)
		})
		f.idp.Publish(key, rotated)
		f.clock.Advance(KeyRefreshInterval)
		if _, err := f.e.identify(request(f.token(t, rotated, "u1")), User); err != nil {
			t.Fatalf("the rotated key after the outage: %v", err)
		}
	})
}

// While the first discovery hangs, health is starting and tokens get 503;
// once it answers, health is ok and tokens verify.
func TestDiscoveryHangs(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	idp := authtest.Start(t, key)
	release := idp.HoldDiscovery()
	defer release()
	f := startEntra(t, idp)
	if got := f.health.get(); got != healthStarting {
		t.Fatalf("health while discovering: %q", got)
	}
	if _, err := f.e.identify(request(f.token(t, key, "u1")), User); !todo.IsKind(err, todo.Unavailable) || todo.RetryAfter(err) == 0 {
		t.Fatalf("a token while discovering: %v, want 503 with a retry hint", err)
	}
	if got := f.health.get(); got != healthStarting {
		t.Fatalf("health while discovering: %q", got)
	}
	release()
	f.health.wait(t, healthOK)
	if _, err := f.e.identify(request(f.token(t, key, "u1")), User); err != nil {
		t.Fatal(err)
	}
}

// Discovery is retried until the provider answers; meanwhile tokens get 503,
// requests without one 401, and health names the provider.
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
	clock := authtest.NewClock(time.Now())
	health := newRecorder()
	// Every request to the provider goes through the flaky front.
	e := newEntra(idp.Issuer, testAudience, quiet, &Options{Health: health, Clock: clock})
	e.client = &http.Client{Transport: redirectTo(flaky.URL), Timeout: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.start(ctx)

	// Two attempts fail, each followed by a back-off wait.
	for n := 1; n <= 2; n++ {
		clock.WaitStarted(t, n)
		if got := health.get(); got != healthNoKeys {
			t.Fatalf("health after a failed discovery: %q", got)
		}
		token := authtest.Sign(t, key, idp.Claims(testAudience, "u1"))
		if _, err := e.identify(request(token), User); !todo.IsKind(err, todo.Unavailable) || todo.RetryAfter(err) == 0 {
			t.Fatalf("before discovery: %v, want unavailable with a retry hint", err)
		}
		if _, err := e.identify(httptest.NewRequest(http.MethodGet, "/api/todos", nil), User); !errors.Is(err, errNoCredentials) {
			t.Fatalf("no token before discovery: %v", err)
		}
		clock.Advance(retryPolicy.Max)
	}
	clock.WaitStarted(t, 3)
	failing.Store(false)
	clock.Advance(retryPolicy.Max)
	health.wait(t, healthOK)
	if _, err := e.identify(request(authtest.Sign(t, key, idp.Claims(testAudience, "u1"))), User); err != nil {
		t.Fatalf("after the provider came back: %v", err)
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

// Claims are read under their exact names: a name that only folds to roles
// or oid (in case, or by Unicode's simple folding, as ſ does to s) is
// ignored, and a name given twice is refused.
func TestClaimsMatchedExactly(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	f := discovered(t, authtest.Start(t, key))
	const user, other = "u1", "intruder"
	cases := []struct {
		name   string
		change func(map[string]any)
		caller Caller // zero: refused
	}{
		{"roles", func(c map[string]any) { c["roles"] = []string{AdminRole} }, Caller{User: user, Admin: true}},
		{"ROLES", func(c map[string]any) { c["ROLES"] = []string{AdminRole} }, Caller{User: user}},
		{"Roles", func(c map[string]any) { c["Roles"] = []string{AdminRole} }, Caller{User: user}},
		{"roleſ", func(c map[string]any) { c["roleſ"] = []string{AdminRole} }, Caller{User: user}},
		{"ROLES beside roles", func(c map[string]any) { c["roles"] = []string{"Todo.Reader"}; c["ROLES"] = []string{AdminRole} }, Caller{User: user}},
		{"OID beside oid", func(c map[string]any) { c["OID"] = other }, Caller{User: user}},
		{"Oid beside oid", func(c map[string]any) { c["Oid"] = other }, Caller{User: user}},
		{"OID alone", func(c map[string]any) { delete(c, "oid"); c["OID"] = other }, Caller{}},
		{"ISS alone", func(c map[string]any) { c["ISS"] = c["iss"]; delete(c, "iss") }, Caller{}},
		{"AUD alone", func(c map[string]any) { c["AUD"] = c["aud"]; delete(c, "aud") }, Caller{}},
		{"EXP alone", func(c map[string]any) { c["EXP"] = c["exp"]; delete(c, "exp") }, Caller{}},
		{"aud as an array", func(c map[string]any) { c["aud"] = []string{"api://other", testAudience} }, Caller{User: user}},
		{"roles as a string", func(c map[string]any) { c["roles"] = AdminRole }, Caller{}},
		{"oid as a number", func(c map[string]any) { c["oid"] = 7 }, Caller{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claims := f.idp.Claims(testAudience, user)
			tc.change(claims)
			c, err := f.e.identify(request(authtest.Sign(t, key, claims)), User)
			if tc.caller == (Caller{}) {
				if !todo.IsKind(err, todo.Unauthorized) {
					t.Fatalf("%+v %v, want 401", c, err)
				}
				return
			}
			if err != nil || c != tc.caller {
				t.Fatalf("%+v %v, want %+v", c, err, tc.caller)
			}
		})
	}
	// A payload that names a claim twice: encoding/json would take the
	// last, so it is refused.
	good := fmt.Sprintf(`"iss":%q,"aud":%q,"exp":%d`, f.idp.Issuer, testAudience, f.clock.Now().Add(time.Hour).Unix())
	for _, payload := range []string{
		`{` + good + `,"oid":"u1","oid":"intruder"}`,
		`{` + good + `,"oid":"u1","\u006fid":"intruder"}`,
		`{` + good + `,"oid":"u1","roles":[],"roles":["Todo.Admin"]}`,
		`{` + good + `,"oid":"u1","x":"` + "\xff" + `"}`,
	} {
		if c, err := f.e.identify(request(authtest.SignPayload(t, key, []byte(payload))), User); !todo.IsKind(err, todo.Unauthorized) {
			t.Errorf("%s: %+v %v, want 401", payload, c, err)
		}
	}
	// Folded names after the exact ones, where encoding/json would let
	// them override.
	for payload, want := range map[string]Caller{
		`{` + good + `,"\u006fid":"u1"}`:                                   {User: user},
		`{` + good + `,"oid":"u1","OID":"intruder"}`:                       {User: user},
		`{` + good + `,"oid":"u1","roles":[],"ROLES":["Todo.Admin"]}`:      {User: user},
		`{` + good + `,"oid":"u1","roles":[],"role\u017f":["Todo.Admin"]}`: {User: user},
	} {
		if c, err := f.e.identify(request(authtest.SignPayload(t, key, []byte(payload))), User); err != nil || c != want {
			t.Errorf("%s: %+v %v, want %+v", payload, c, err, want)
		}
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
	valid := func(exp, nbf *float64) *claims {
		return &claims{Issuer: "iss", Audience: []string{testAudience}, OID: "u", Expiry: exp, NotBefore: nbf}
	}
	for _, tc := range cases {
		if err := valid(tc.exp, tc.nbf).check(now, "iss", testAudience); (err == nil) != tc.ok {
			t.Errorf("exp %v nbf %v: %v, want ok=%v", tc.exp, tc.nbf, err, tc.ok)
		}
	}
	huge := 1e300
	if err := valid(&huge, &huge).check(now, "iss", testAudience); err == nil {
		t.Error("an nbf beyond any date was accepted")
	}
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
		{[]string{"bearer a.b.c"}, "a.b.c", false},
		{[]string{"Bearer  a.b.c"}, "a.b.c", false},
		{[]string{"Bearer eyJh-_.eyJ0.c2ln"}, "eyJh-_.eyJ0.c2ln", false},
		{[]string{"Bearer a.b."}, "a.b.", false},
		{[]string{"Bearer a.b.c", "Bearer d.e.f"}, "", false},
		{[]string{"Bearer abc"}, "", false},
		{[]string{"Bearer a.b"}, "", false},
		{[]string{"Bearer a.b.c.d"}, "", false},
		{[]string{"Bearer .b.c"}, "", false},
		{[]string{"Bearer a..c"}, "", false},
		{[]string{"Bearer a.b .c"}, "", false},
		{[]string{"Bearer a.b.c "}, "", false},
		{[]string{"Bearer a.b\t.c"}, "", false},
		{[]string{"Bearer a.b\n.c"}, "", false},
		{[]string{"Bearer a.b\r\n.c"}, "", false},
		{[]string{"Bearer a.b\u00a0.c"}, "", false},
		{[]string{"Bearer a=.b.c"}, "", false},
		{[]string{"Bearer a+/.b.c"}, "", false},
		{[]string{`Bearer {"protected":"a","payload":"b","signature":"c"}`}, "", false},
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
		if err != nil && !todo.IsKind(err, todo.Unauthorized) {
			t.Errorf("%q: refused with %v, want 401", tc.headers, err)
		}
	}
}

// A signed token is refused in the JWS JSON serialisation and with white
// space anywhere inside it, though go-jose would take both.
func TestTokenSerialisation(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	f := discovered(t, authtest.Start(t, key))
	claims := f.idp.Claims(testAudience, "u1")
	compact := authtest.Sign(t, key, claims)
	if _, err := f.e.identify(request(compact), User); err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(compact, ".")
	for name, token := range map[string]string{
		"JSON serialisation":    authtest.SignJSONSerialization(t, key, claims),
		"a space inside":        header + ". " + rest,
		"a tab inside":          header + "\t." + rest,
		"a line break inside":   header + ".\r\n" + rest,
		"a trailing space":      compact + " ",
		"a no-break space":      header + "\u00a0." + rest,
		"base64 padding inside": header + "=." + rest,
	} {
		if c, err := f.e.identify(request(token), User); !todo.IsKind(err, todo.Unauthorized) {
			t.Errorf("%s: %+v %v, want 401", name, c, err)
		}
	}
}
