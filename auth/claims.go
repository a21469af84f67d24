package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// claims are the token claims entra checks.
type claims struct {
	Issuer    string
	Audience  []string
	OID       string
	Roles     []string
	Expiry    *float64
	NotBefore *float64
}

// parseClaims reads a token's payload. Each claim is taken under its exact
// name (RFC 7519 section 10.1.1: claim names are case-sensitive), which
// encoding/json does not do for struct fields: it would fill roles from a
// signed ROLES or roleſ claim, and oid from OID. The payload must be
// strict JSON, so a name given twice, or spelt once with an escape and
// once without, is refused rather than read as the last.
func parseClaims(payload []byte) (*claims, error) {
	if _, err := jsondoc.Check(payload); err != nil {
		return nil, fmt.Errorf("the token's claims: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(payload, &members); err != nil {
		return nil, fmt.Errorf("the token's claims are not a JSON object: %w", err)
	}
	var c claims
	for name, into := range map[string]any{
		"iss": &c.Issuer, "oid": &c.OID, "roles": &c.Roles, "exp": &c.Expiry, "nbf": &c.NotBefore,
	} {
		if raw, ok := members[name]; ok {
			if err := json.Unmarshal(raw, into); err != nil {
				return nil, fmt.Errorf("the token's %s claim: %w", name, err)
			}
		}
	}
	// aud is one string or an array of them (RFC 7519 section 4.1.3).
	if raw, ok := members["aud"]; ok {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			c.Audience = []string{one}
		} else if err := json.Unmarshal(raw, &c.Audience); err != nil {
			return nil, fmt.Errorf("the token's aud claim: %w", err)
		}
	}
	return &c, nil
}

// check requires the issuer and audience entra trusts, a usable oid and a
// token within its lifetime, give or take maxSkew.
func (c *claims) check(now time.Time, issuer, audience string) error {
	switch {
	case c.Issuer != issuer:
		return errors.New("the token's iss is not AUTH_ISSUER")
	case !slices.Contains(c.Audience, audience):
		return errors.New("the token's aud does not include AUTH_AUDIENCE")
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
