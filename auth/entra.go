package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/todoaudit/todo"
)

// Timing of the entra mode.
const (
	// maxSkew is the clock difference tolerated on exp and nbf.
	maxSkew = 2 * time.Minute
	// fetchTimeout bounds each discovery and key set request.
	fetchTimeout = 10 * time.Second
	// maxRetryDelay caps the back-off between failed discoveries.
	maxRetryDelay = time.Minute
	// minKeyRefresh is the least time between two key set fetches.
	minKeyRefresh = 5 * time.Second
	// keyMaxAge is how often the key set is fetched even without an unknown
	// key id, so that keys the provider withdraws stop verifying.
	keyMaxAge = 24 * time.Hour
)

// entra verifies Microsoft Entra ID (or any OpenID provider's) RS256 bearer
// tokens: signature against the provider's published keys, iss, aud, exp and
// nbf; the caller is the token's oid and is an admin with the admin role in
// its roles claim.
type entra struct {
	issuer, audience string
	client           *http.Client
	log              *slog.Logger
	minKeyRefresh    time.Duration
	now              func() time.Time
	// report hears each discovery and key set fetch outcome.
	report func(error)

	// verifier and keys are set once discovery succeeds.
	verifier atomic.Pointer[oidc.IDTokenVerifier]
	keys     atomic.Pointer[keySet]
}

func newEntra(issuer, audience string, log *slog.Logger) *entra {
	return &entra{
		issuer: issuer, audience: audience, log: log,
		client:        &http.Client{Timeout: fetchTimeout},
		minKeyRefresh: minKeyRefresh,
		now:           time.Now,
		report:        func(error) {},
	}
}

// run discovers the provider, retrying with back-off, loads its keys, then
// fetches them again every keyMaxAge until ctx ends.
func (e *entra) run(ctx context.Context) {
	delay := time.Second
	for e.keys.Load() == nil || !e.keys.Load().loaded() {
		err := e.discover(ctx)
		if err == nil {
			break
		}
		e.report(unreachable(err))
		e.log.Error("OpenID provider not reachable; bearer tokens get 503 until it is", "issuer", e.issuer, "retryIn", delay.String(), "error", err.Error())
		if !sleep(ctx, delay) {
			return
		}
		delay = min(2*delay, maxRetryDelay)
	}
	e.log.Info("OpenID provider discovered", "issuer", e.issuer)
	t := time.NewTicker(keyMaxAge)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := e.keys.Load().refresh(ctx); err != nil {
				e.log.Error("refreshing the OpenID provider's keys failed; the cached keys stay in use", "error", err.Error())
			}
		}
	}
}

// discover reads the provider's OpenID configuration (go-oidc checks that
// its issuer is AUTH_ISSUER exactly) and loads its key set.
func (e *entra) discover(ctx context.Context) error {
	if e.verifier.Load() == nil {
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
		keys := newKeySet(meta.JWKS, e.client, e.minKeyRefresh)
		keys.fetched = func(err error) {
			if err != nil {
				err = unreachable(err)
			}
			e.report(err)
		}
		e.keys.Store(keys)
		// exp and nbf are checked here with maxSkew: go-oidc allows none
		// on exp and five minutes on nbf.
		e.verifier.Store(oidc.NewVerifier(e.issuer, keys, &oidc.Config{
			ClientID:             e.audience,
			SupportedSigningAlgs: []string{oidc.RS256},
			SkipExpiryCheck:      true,
		}))
	}
	return e.keys.Load().refresh(ctx)
}

// unreachable is the public face of a provider that cannot be reached.
func unreachable(err error) error {
	return todo.Wrap(todo.Unavailable, err, "the identity provider's keys cannot be fetched, so bearer tokens cannot be verified")
}

// claims are the token claims entra reads beyond go-oidc's checks.
type claims struct {
	OID       string   `json:"oid"`
	Roles     []string `json:"roles"`
	Expiry    *float64 `json:"exp"`
	NotBefore *float64 `json:"nbf"`
}

func (e *entra) identify(r *http.Request, _ Access) (Caller, error) {
	token, err := bearerToken(r)
	if err != nil {
		return Caller{}, err
	}
	v, keys := e.verifier.Load(), e.keys.Load()
	if v == nil || !keys.loaded() {
		return Caller{}, &todo.Error{Kind: todo.Unavailable, RetryAfter: 5 * time.Second,
			Message: "bearer tokens cannot be verified yet: the identity provider's keys are not loaded"}
	}
	ctx, unavailable := withUnavailableMark(r.Context())
	tok, err := v.Verify(ctx, token)
	if err != nil {
		if *unavailable {
			return Caller{}, unreachable(err)
		}
		return Caller{}, invalid(err)
	}
	var c claims
	if err := tok.Claims(&c); err != nil {
		return Caller{}, invalid(err)
	}
	if err := c.check(e.now()); err != nil {
		return Caller{}, invalid(err)
	}
	return Caller{User: c.OID, Admin: slices.Contains(c.Roles, AdminRole)}, nil
}

// check requires a usable oid and a token within its lifetime, give or take
// maxSkew.
func (c *claims) check(now time.Time) error {
	switch {
	case c.Expiry == nil:
		return errors.New("the token has no exp")
	case now.Add(-maxSkew).After(unixTime(*c.Expiry)):
		return fmt.Errorf("the token expired at %s", unixTime(*c.Expiry).UTC().Format(time.RFC3339))
	case c.NotBefore != nil && now.Add(maxSkew).Before(unixTime(*c.NotBefore)):
		return fmt.Errorf("the token is not valid before %s", unixTime(*c.NotBefore).UTC().Format(time.RFC3339))
	case c.OID == "":
		return errors.New("the token has no oid")
	}
	if err := todo.ValidateUserID(c.OID); err != nil {
		return fmt.Errorf("oid: %w", err)
	}
	return nil
}

// unixTime converts a NumericDate, clamped far beyond any real token's
// times so that the conversion cannot overflow.
func unixTime(seconds float64) time.Time {
	const limit = 1 << 40
	sec, frac := math.Modf(max(min(seconds, limit), -limit))
	return time.Unix(int64(sec), int64(frac*1e9))
}

// bearerToken returns the token of an Authorization: Bearer header. No
// header, or another scheme, is a request without credentials.
func bearerToken(r *http.Request) (string, error) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 {
		return "", missing("sign in: send Authorization: Bearer <token>")
	}
	scheme, token, _ := strings.Cut(h[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", missing("sign in: send Authorization: Bearer <token>")
	}
	token = strings.TrimSpace(token)
	switch {
	case len(h) > 1:
		return "", invalid(errors.New("more than one Authorization header"))
	case token == "":
		return "", invalid(errors.New("an empty bearer token"))
	case len(token) > maxCredentialBytes:
		return "", invalid(errors.New("a bearer token longer than the limit"))
	}
	return token, nil
}

// sleep waits d unless ctx ends first; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
