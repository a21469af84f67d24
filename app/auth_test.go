package app_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/auth/authtest"
)

const (
	userRoute  = "/api/todos"
	adminRoute = "/api/manage/todos"
	audience   = "api://todoaudit-test"
	oid        = "1c7e1b5a-7f9e-4d2a-9c1e-2b8f0a6d3e41"
)

// A caller as it would be seen by the handler: its headers only.
func (s *server) with(headers map[string]string) *server {
	c := s.As("")
	c.Header = headers
	return c
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// wantRefusal checks status, problem+json and the WWW-Authenticate challenge.
func wantRefusal(t *testing.T, s *server, path string, status int, challenge string) {
	t.Helper()
	r := want(t, s.Do("GET", path, nil), status)
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("%s: Content-Type %q, want application/problem+json", path, ct)
	}
	if got := r.Header.Get("WWW-Authenticate"); got != challenge {
		t.Errorf("%s: WWW-Authenticate %q, want %q", path, got, challenge)
	}
}

// Under entra the handler verifies tokens from a real OpenID provider on a
// loopback port: every way a token can be wrong gets 401 with
// error="invalid_token", on user and admin routes alike, and says nothing
// about which check failed.
func TestEntraTokens(t *testing.T) {
	current, next, stranger := authtest.NewKey(t, "k1"), authtest.NewKey(t, "k2"), authtest.NewKey(t, "k9")
	idp := authtest.Start(t, current)
	s, clock := startEntra(t, idp)

	claims := func(change func(map[string]any)) map[string]any {
		c := idp.Claims(audience, oid)
		change(c)
		return c
	}
	valid := authtest.Sign(t, current, claims(func(map[string]any) {}))
	header, rest, _ := strings.Cut(valid, ".")
	now := clock.Now()
	invalid := map[string]string{
		"expired":                   authtest.Sign(t, current, claims(func(c map[string]any) { c["exp"] = now.Add(-3 * time.Minute).Unix() })),
		"not yet valid":             authtest.Sign(t, current, claims(func(c map[string]any) { c["nbf"] = now.Add(3 * time.Minute).Unix() })),
		"no exp":                    authtest.Sign(t, current, claims(func(c map[string]any) { delete(c, "exp") })),
		"wrong audience":            authtest.Sign(t, current, claims(func(c map[string]any) { c["aud"] = "api://another-api" })),
		"wrong issuer":              authtest.Sign(t, current, claims(func(c map[string]any) { c["iss"] = "https://login.example.com/other/v2.0" })),
		"key not in the set":        authtest.Sign(t, stranger, claims(func(map[string]any) {})),
		"another key, a known kid":  authtest.Sign(t, &authtest.Key{ID: current.ID, Private: stranger.Private}, claims(func(map[string]any) {})),
		"alg none":                  authtest.Unsigned(t, claims(func(map[string]any) {})),
		"HS256 with the public key": authtest.SignHS256WithPublicKey(t, current, claims(func(map[string]any) {})),
		"no oid":                    authtest.Sign(t, current, claims(func(c map[string]any) { delete(c, "oid") })),
		"only OID":                  authtest.Sign(t, current, claims(func(c map[string]any) { c["OID"] = c["oid"]; delete(c, "oid") })),
		"oid twice":                 authtest.SignPayload(t, current, []byte(fmt.Sprintf(`{"iss":%q,"aud":%q,"exp":%d,"oid":%q,"oid":"intruder"}`, idp.Issuer, audience, now.Add(time.Hour).Unix(), oid))),
		"not a JWT":                 "opaque-token",
		"JSON serialisation":        authtest.SignJSONSerialization(t, current, claims(func(map[string]any) {})),
		"a space inside":            header + ". " + rest,
		"a tab inside":              header + ".\t" + rest,
	}
	// The unknown key id fetches the key set at once, the rate limit
	// having passed since discovery's fetch.
	clock.Advance(auth.KeyRefreshInterval)
	for name, token := range invalid {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{userRoute, adminRoute} {
				wantRefusal(t, s.with(bearer(token)), path, 401, `Bearer error="invalid_token"`)
				r := s.with(bearer(token)).Do("GET", path, nil)
				if detail := r.JSON(t)["detail"]; detail != "the credentials are not valid" {
					t.Errorf("%s: detail %q tells which check failed", path, detail)
				}
			}
		})
	}

	t.Run("no token", func(t *testing.T) {
		for _, path := range []string{userRoute, adminRoute} {
			wantRefusal(t, s.with(nil), path, 401, "Bearer")
			wantRefusal(t, s.with(map[string]string{"Authorization": "Basic YWxpY2U6c2VjcmV0"}), path, 401, "Bearer")
			// dev mode's header means nothing here.
			wantRefusal(t, s.with(map[string]string{"X-User-Id": "alice"}), path, 401, "Bearer")
		}
	})

	t.Run("valid", func(t *testing.T) {
		user := s.with(bearer(authtest.Sign(t, current, idp.Claims(audience, oid))))
		td := want(t, user.Do("POST", userRoute, map[string]any{"category": "Grocery", "title": "milk"}), 201).JSON(t)
		if td["userId"] != oid {
			t.Fatalf("the user is %v, want the token's oid %s", td["userId"], oid)
		}
		want(t, user.Do("GET", userRoute, nil), 200)
		wantRefusal(t, user, adminRoute, 403, `Bearer error="insufficient_scope"`)
		wantRefusal(t, user, "/api/manage/partitions", 403, `Bearer error="insufficient_scope"`)

		admin := s.with(bearer(authtest.Sign(t, current, idp.Claims(audience, "9a0d3f12-5b6c-4e7f-8a9b-0c1d2e3f4a5b", auth.AdminRole))))
		want(t, admin.Do("GET", userRoute, nil), 200)
		if items := admin.ListAll(adminRoute); len(items) != 1 || items[0]["userId"] != oid {
			t.Fatalf("the admin report: %v", items)
		}
		want(t, admin.Do("GET", "/api/manage/partitions", nil), 200)
		// Another role is not the admin role.
		other := s.with(bearer(authtest.Sign(t, current, idp.Claims(audience, oid, "Todo.Reader"))))
		wantRefusal(t, other, adminRoute, 403, `Bearer error="insufficient_scope"`)
	})

	t.Run("claim names matched exactly", func(t *testing.T) {
		// A name that only folds to roles grants nothing.
		for _, name := range []string{"ROLES", "Roles", "roleſ"} {
			c := claims(func(c map[string]any) { c[name] = []string{auth.AdminRole} })
			wantRefusal(t, s.with(bearer(authtest.Sign(t, current, c))), adminRoute, 403, `Bearer error="insufficient_scope"`)
		}
		// OID after oid does not name the caller.
		payload := fmt.Sprintf(`{"iss":%q,"aud":%q,"exp":%d,"oid":%q,"OID":"0f0f0f0f-1111-4222-8333-444455556666"}`, idp.Issuer, audience, clock.Now().Add(time.Hour).Unix(), oid)
		td := want(t, s.with(bearer(authtest.SignPayload(t, current, []byte(payload)))).Do("POST", userRoute, map[string]any{"category": "Grocery", "title": "eggs"}), 201).JSON(t)
		if td["userId"] != oid {
			t.Fatalf("the user is %v, want the token's oid %s", td["userId"], oid)
		}
	})

	t.Run("clock skew within two minutes", func(t *testing.T) {
		for _, c := range []map[string]any{
			claims(func(c map[string]any) { c["exp"] = now.Add(-time.Minute).Unix() }),
			claims(func(c map[string]any) { c["nbf"] = now.Add(time.Minute).Unix() }),
		} {
			want(t, s.with(bearer(authtest.Sign(t, current, c))).Do("GET", userRoute, nil), 200)
		}
	})

	t.Run("key rotation", func(t *testing.T) {
		// The provider starts signing with a key the handler has never
		// seen: the handler fetches the key set again and accepts it.
		idp.Publish(current, next)
		clock.Advance(auth.KeyRefreshInterval)
		fetches := idp.KeyFetches.Load()
		admin := s.with(bearer(authtest.Sign(t, next, idp.Claims(audience, oid, auth.AdminRole))))
		want(t, admin.Do("GET", userRoute, nil), 200)
		want(t, admin.Do("GET", adminRoute, nil), 200)
		if got := idp.KeyFetches.Load() - fetches; got != 1 {
			t.Fatalf("%d key set fetches for one new key, want 1", got)
		}
	})
}

// startEntra runs the handler under entra against idp, on a fake clock
// that idp mints its tokens at too, and waits until the provider is
// discovered.
func startEntra(t *testing.T, idp *authtest.Provider) (*server, *authtest.Clock) {
	t.Helper()
	clock := authtest.NewClock(time.Now())
	idp.Now = clock.Now
	s := startAppWith(t, map[string]string{"AUTH_ISSUER": idp.Issuer, "AUTH_AUDIENCE": audience}, &app.Options{AuthClock: clock})
	waitForKeys(t, s)
	return s, clock
}

// waitForKeys waits until the handler has discovered the provider: until
// then a token gets 503, and health is not 200 either.
func waitForKeys(t *testing.T, s *server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := s.with(bearer("x.y.z")).Do("GET", userRoute, nil)
		if r.Status == 401 && s.Do("GET", "/api/health", nil).Status == 200 {
			return
		}
		if r.Status != 503 && r.Status != 401 || time.Now().After(deadline) {
			t.Fatalf("while discovering the provider: %d %s", r.Status, r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// While the provider cannot be reached, a token can be neither accepted nor
// refused: 503 with Retry-After, and still 401 without a token. The
// handler starts all the same, and its health says what is wrong.
func TestEntraProviderUnreachable(t *testing.T) {
	s := startApp(t, map[string]string{"AUTH_ISSUER": "http://" + refusingAddr(t), "AUTH_AUDIENCE": audience})
	r := want(t, s.with(bearer("x.y.z")).Do("GET", userRoute, nil), 503)
	if r.Header.Get("Retry-After") == "" || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("503 without Retry-After or problem: %v", r.Header)
	}
	wantRefusal(t, s.with(nil), userRoute, 401, "Bearer")
	deadline := time.Now().Add(10 * time.Second)
	for {
		h := s.Do("GET", "/api/health", nil)
		if h.Status == 503 && strings.Contains(string(h.Body), "identity provider") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health while the provider is unreachable: %d %s", h.Status, h.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// While the first discovery hangs, health is 503 "starting" and a token
// gets 503; health is 200 once the provider answers.
func TestEntraDiscoveryHangs(t *testing.T) {
	key := authtest.NewKey(t, "k1")
	idp := authtest.Start(t, key)
	release := idp.HoldDiscovery()
	defer release()
	s := startApp(t, map[string]string{"AUTH_ISSUER": idp.Issuer, "AUTH_AUDIENCE": audience})
	h := want(t, s.Do("GET", "/api/health", nil), 503).JSON(t)
	if h["status"] != "starting" || h["store"] != "the identity provider is being discovered" {
		t.Fatalf("health while discovering: %v", h)
	}
	r := want(t, s.with(bearer(authtest.Sign(t, key, idp.Claims(audience, oid)))).Do("GET", userRoute, nil), 503)
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("503 without Retry-After: %v", r.Header)
	}
	release()
	waitForKeys(t, s)
	want(t, s.Do("GET", "/api/health", nil), 200)
}

// A key set outage after discovery: tokens of the keys fetched before
// are never refused, an unknown key id gets 503, health is 503 degraded
// naming the provider, and 200 again within auth.MaxRetryDelay of the
// provider's return, without a request needing to ask.
func TestEntraKeySetOutage(t *testing.T) {
	current, next := authtest.NewKey(t, "k1"), authtest.NewKey(t, "k2")
	idp := authtest.Start(t, current)
	s, clock := startEntra(t, idp)
	user := func() *server { return s.with(bearer(authtest.Sign(t, current, idp.Claims(audience, oid)))) }
	want(t, s.Do("GET", "/api/health", nil), 200)

	idp.KeysDown(true)
	idp.Publish(current, next)
	clock.Advance(auth.KeyRefreshInterval)
	started := clock.Started()
	r := want(t, s.with(bearer(authtest.Sign(t, next, idp.Claims(audience, oid)))).Do("GET", userRoute, nil), 503)
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("503 without Retry-After: %v", r.Header)
	}
	// The retry waits on the clock.
	clock.WaitStarted(t, started+1)
	h := want(t, s.Do("GET", "/api/health", nil), 503).JSON(t)
	if h["status"] != "degraded" || !strings.Contains(h["store"].(string), "identity provider") {
		t.Fatalf("health during the outage: %v", h)
	}
	want(t, user().Do("GET", userRoute, nil), 200)

	idp.KeysDown(false)
	started = clock.Started()
	clock.Advance(auth.MaxRetryDelay)
	clock.WaitStarted(t, started+1)
	want(t, s.Do("GET", "/api/health", nil), 200)
	want(t, user().Do("GET", userRoute, nil), 200)
	want(t, s.with(bearer(authtest.Sign(t, next, idp.Claims(audience, oid)))).Do("GET", userRoute, nil), 200)
}

// Admin routes under every mode: 401 without a user, 403 without the role,
// 200 with it.
func TestAdminRole(t *testing.T) {
	paths := []string{adminRoute, "/api/manage/partitions"}
	t.Run("dev", func(t *testing.T) {
		s := startApp(t, map[string]string{"ADMIN_USERS": "root, ops"})
		for _, p := range paths {
			// The default user never reaches admin routes.
			want(t, s.with(nil).Do("GET", p, nil), 401)
			want(t, s.with(map[string]string{"X-User-Id": "alice"}).Do("GET", p, nil), 403)
			want(t, s.with(map[string]string{"X-User-Id": "ops"}).Do("GET", p, nil), 200)
		}
		want(t, s.with(nil).Do("GET", userRoute, nil), 200)
	})
	t.Run("single", func(t *testing.T) {
		for admins, status := range map[string]int{"": 403, "someone": 403, "owner": 200} {
			s := startApp(t, map[string]string{"AUTH_MODE": "single", "ADMIN_USERS": admins})
			for _, p := range paths {
				// single has no caller to leave out: every request is owner's.
				want(t, s.with(nil).Do("GET", p, nil), status)
			}
		}
	})
	t.Run("easyauth", func(t *testing.T) {
		s := startApp(t, map[string]string{"AUTH_MODE": "easyauth"})
		for _, p := range paths {
			wantRefusal(t, s.with(nil), p, 401, "Bearer")
			wantRefusal(t, s.with(principal(oid)), p, 403, `Bearer error="insufficient_scope"`)
			want(t, s.with(principal(oid, "Todo.Reader")).Do("GET", p, nil), 403)
			want(t, s.with(principal(oid, auth.AdminRole)).Do("GET", p, nil), 200)
		}
	})
	t.Run("entra", func(t *testing.T) {
		key := authtest.NewKey(t, "k1")
		idp := authtest.Start(t, key)
		s := startApp(t, map[string]string{"AUTH_ISSUER": idp.Issuer, "AUTH_AUDIENCE": audience})
		waitForKeys(t, s)
		for _, p := range paths {
			wantRefusal(t, s.with(nil), p, 401, "Bearer")
			wantRefusal(t, s.with(bearer(authtest.Sign(t, key, idp.Claims(audience, oid)))), p, 403, `Bearer error="insufficient_scope"`)
			want(t, s.with(bearer(authtest.Sign(t, key, idp.Claims(audience, oid, auth.AdminRole)))).Do("GET", p, nil), 200)
		}
	})
}

func principal(oid string, roles ...string) map[string]string {
	return map[string]string{auth.PrincipalIDHeader: oid, auth.PrincipalHeader: authtest.Principal(oid, roles...)}
}

// easyauth trusts only the pair App Service Authentication sets: the id
// alone (which a caller could send itself where App Service Authentication
// does not run) or an id that disagrees with the principal is refused.
func TestEasyAuthPrincipal(t *testing.T) {
	s := startApp(t, map[string]string{"AUTH_MODE": "easyauth"})
	other := "0f0f0f0f-1111-4222-8333-444455556666"
	cases := []struct {
		name      string
		headers   map[string]string
		status    int
		challenge string
	}{
		{"the id alone", map[string]string{auth.PrincipalIDHeader: oid}, 401, `Bearer error="invalid_token"`},
		{"the principal alone", map[string]string{auth.PrincipalHeader: authtest.Principal(oid)}, 401, `Bearer error="invalid_token"`},
		{"an id that disagrees", map[string]string{auth.PrincipalIDHeader: other, auth.PrincipalHeader: authtest.Principal(oid)}, 401, `Bearer error="invalid_token"`},
		{"a principal that is not base64", map[string]string{auth.PrincipalIDHeader: oid, auth.PrincipalHeader: "{not base64}"}, 401, `Bearer error="invalid_token"`},
		{"neither", nil, 401, "Bearer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantRefusal(t, s.with(tc.headers), userRoute, tc.status, tc.challenge)
			wantRefusal(t, s.with(tc.headers), adminRoute, tc.status, tc.challenge)
		})
	}
	t.Run("both in agreement", func(t *testing.T) {
		td := want(t, s.with(principal(oid)).Do("POST", userRoute, map[string]any{"category": "Grocery", "title": "milk"}), 201).JSON(t)
		if td["userId"] != oid {
			t.Fatalf("user %v, want %s", td["userId"], oid)
		}
		if items := s.with(principal(oid)).ListAll(userRoute); len(items) != 1 {
			t.Fatalf("list: %v", items)
		}
		// The same todo is invisible to another principal.
		if items := s.with(principal(other)).ListAll(userRoute); len(items) != 0 {
			t.Fatalf("another principal lists %v", items)
		}
		if !strings.Contains(string(s.with(principal(oid)).Do("GET", userRoute, nil).Body), "milk") {
			t.Fatal("the todo is not listed")
		}
	})
}
