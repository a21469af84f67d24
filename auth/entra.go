package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/backoff"
)

// Timing of the entra mode.
const (
	// maxSkew is the clock difference tolerated on exp and nbf.
	maxSkew = 2 * time.Minute
	// fetchTimeout bounds each discovery and key set request.
	fetchTimeout = 10 * time.Second
	// KeyRefreshInterval is the least time between two key set fetches,
	// however many unknown key ids arrive.
	KeyRefreshInterval = 5 * time.Second
	// keyMaxAge is how often the key set is fetched even without an unknown
	// key id, so that keys the provider withdraws stop verifying.
	keyMaxAge = 24 * time.Hour
)

// MaxRetryDelay caps the wait between attempts after a failed discovery or
// key set fetch, so that tokens verify, and health is ok, within it of the
// provider answering again; one request every ten seconds is nothing to
// the provider.
const MaxRetryDelay = 10 * time.Second

// retryPolicy spaces out those attempts.
var retryPolicy = backoff.Policy{Base: time.Second, Max: MaxRetryDelay}

// healthSource names the identity provider in /api/health.
const healthSource = "identity provider"

// entra verifies Microsoft Entra ID (or any OpenID provider's) RS256 bearer
// tokens: signature against the provider's published keys, iss, aud, exp and
// nbf; the caller is the token's oid and is an admin with the admin role in
// its roles claim.
type entra struct {
	issuer, audience string
	client           *http.Client
	log              *slog.Logger
	health           Health
	clock            Clock

	// keys is set once discovery has found the provider's key set URL.
	keys atomic.Pointer[keySet]
	// fetchFailed wakes the key set's upkeep when a fetch fails.
	fetchFailed chan struct{}
}

func newEntra(issuer, audience string, log *slog.Logger, o *Options) *entra {
	e := &entra{
		issuer: issuer, audience: audience, log: log,
		client:      &http.Client{Timeout: fetchTimeout},
		health:      noHealth{},
		clock:       systemClock{},
		fetchFailed: make(chan struct{}, 1),
	}
	if o != nil && o.Health != nil {
		e.health = o.Health
	}
	if o != nil && o.Clock != nil {
		e.clock = o.Clock
	}
	return e
}

// noHealth hears nothing.
type noHealth struct{}

func (noHealth) Starting(string, string) {}
func (noHealth) Report(string, error)    {}

// start discovers the provider in the background until ctx ends; health
// says the provider is starting until the first attempt has ended.
func (e *entra) start(ctx context.Context) {
	e.health.Starting(healthSource, "the identity provider is being discovered")
	go e.run(ctx)
}

// run discovers the provider and loads its keys, retrying with back-off,
// then keeps the keys fresh until ctx ends.
func (e *entra) run(ctx context.Context) {
	for n := 0; ; n++ {
		err := e.discover(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		delay := e.retryDelay(n)
		e.health.Report(healthSource, unreachable(err))
		e.log.Error("OpenID provider not reachable; bearer tokens get 503 until it is", "issuer", e.issuer, "retryIn", delay.String(), "error", err.Error())
		if !sleep(ctx, e.clock, delay) {
			return
		}
	}
	e.log.Info("OpenID provider discovered", "issuer", e.issuer)
	e.upkeep(ctx, e.keys.Load())
}

// upkeep fetches the key set again keyMaxAge after its last successful
// fetch and, once a fetch has failed (its own or one an unknown key id
// made), again and again with back-off until one succeeds. Meanwhile the
// keys fetched before stay in use.
func (e *entra) upkeep(ctx context.Context, keys *keySet) {
	for {
		// A failure signalled so far shows in state, this loop's own
		// included.
		select {
		case <-e.fetchFailed:
		default:
		}
		failures, _, lastSuccess := keys.state()
		wait := lastSuccess.Add(keyMaxAge).Sub(e.clock.Now())
		if failures > 0 {
			wait = e.retryDelay(failures - 1)
		}
		tick, stop := e.clock.Timer(wait)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-e.fetchFailed:
			stop()
			continue
		case <-tick:
		}
		if err := keys.refresh(ctx); err != nil && ctx.Err() == nil {
			n, _, _ := keys.state()
			e.log.Error("the OpenID provider's keys cannot be fetched; the keys fetched before stay in use", "issuer", e.issuer, "failures", n, "error", err.Error())
		} else if err == nil && failures > 0 {
			e.log.Info("the OpenID provider's keys were fetched again", "issuer", e.issuer)
		}
	}
}

// retryDelay is the wait before retry n (0 is the first): the back-off,
// and no sooner than the key set's rate limit lets it fetch.
func (e *entra) retryDelay(n int) time.Duration {
	d := retryPolicy.Delay(n)
	if keys := e.keys.Load(); keys != nil {
		_, lastTry, _ := keys.state()
		d = max(d, lastTry.Add(keys.minRefresh).Sub(e.clock.Now()))
	}
	return d
}

// discover reads the provider's OpenID configuration (go-oidc checks that
// its issuer is AUTH_ISSUER exactly) and loads its key set.
func (e *entra) discover(ctx context.Context) error {
	if e.keys.Load() == nil {
		dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, e.client), fetchTimeout)
		defer cancel()
		p, err := oidc.NewProvider(dctx, e.issuer)
		if err != nil {
			return err
		}
		var meta struct {
			JWKS string `json:"jwks_uri"`
		}
		if err := p.Claims(&meta); err != nil || meta.JWKS == "" {
			return fmt.Errorf("the OpenID configuration names no jwks_uri (%v)", err)
		}
		keys := newKeySet(meta.JWKS, e.client, KeyRefreshInterval, e.clock)
		keys.fetched = e.fetched
		e.keys.Store(keys)
	}
	return e.keys.Load().refresh(ctx)
}

// fetched hears the outcome of every key set fetch: health follows it,
// and a failure starts the retries.
func (e *entra) fetched(err error) {
	switch {
	case err == nil:
		e.health.Report(healthSource, nil)
	case e.keys.Load().loaded():
		e.health.Report(healthSource, todo.Wrap(todo.Unavailable, err, "the identity provider's keys cannot be fetched; bearer tokens are verified with the keys fetched before"))
	default:
		e.health.Report(healthSource, unreachable(err))
	}
	if err != nil {
		select {
		case e.fetchFailed <- struct{}{}:
		default:
		}
	}
}

// unreachable is the public face of a provider that cannot be reached.
func unreachable(err error) error {
	return todo.Wrap(todo.Unavailable, err, "the identity provider's keys cannot be fetched, so bearer tokens cannot be verified")
}

func (e *entra) identify(r *http.Request, _ Access) (Caller, error) {
	token, err := bearerToken(r)
	if err != nil {
		return Caller{}, err
	}
	keys := e.keys.Load()
	if keys == nil || !keys.loaded() {
		return Caller{}, &todo.Error{Kind: todo.Unavailable, RetryAfter: 5 * time.Second,
			Message: "bearer tokens cannot be verified yet: the identity provider's keys are not loaded"}
	}
	payload, err := keys.verify(r.Context(), token)
	if errors.Is(err, errKeysUnavailable) {
		return Caller{}, unreachable(err)
	}
	if err != nil {
		return Caller{}, invalid(err)
	}
	c, err := parseClaims(payload)
	if err != nil {
		return Caller{}, invalid(err)
	}
	if err := c.check(e.clock.Now(), e.issuer, e.audience); err != nil {
		return Caller{}, invalid(err)
	}
	return Caller{User: c.OID, Admin: slices.Contains(c.Roles, AdminRole)}, nil
}

// bearerToken returns the token of an Authorization: Bearer header: the
// scheme, one or more spaces (RFC 6750 section 2.1), then a JWS in its
// compact serialisation and nothing else. No header, or another scheme,
// is a request without credentials.
func bearerToken(r *http.Request) (string, error) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 {
		return "", missing("sign in: send Authorization: Bearer <token>")
	}
	scheme, token, _ := strings.Cut(h[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", missing("sign in: send Authorization: Bearer <token>")
	}
	token = strings.TrimLeft(token, " ")
	switch {
	case len(h) > 1:
		return "", invalid(errors.New("more than one Authorization header"))
	case token == "":
		return "", invalid(errors.New("an empty bearer token"))
	case len(token) > maxCredentialBytes:
		return "", invalid(errors.New("a bearer token longer than the limit"))
	case !compactJWS(token):
		return "", invalid(errors.New("a bearer token that is not a JWS in the compact serialisation"))
	}
	return token, nil
}

// compactJWS reports whether token is three base64url parts without
// padding, separated by dots, of which the header and payload are not
// empty (RFC 7515 section 7.1). go-jose would also take the JSON
// serialisation and drop white space anywhere in a token, and
// encoding/base64 skips line breaks: a token is one exact string.
func compactJWS(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return false
	}
	return !strings.ContainsFunc(token, func(r rune) bool {
		return r != '.' && r != '-' && r != '_' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && !('0' <= r && r <= '9')
	})
}
