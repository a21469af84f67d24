// Package authtest is a local OpenID provider for tests: discovery and a
// JWKS document on a loopback port, signing keys that can be rotated, and
// tokens minted well or badly (expired, alg none, HS256 keyed with the public
// key, signed by a key the provider does not publish). It also encodes App
// Service Authentication principals.
package authtest

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Key is an RSA signing key with its key id.
type Key struct {
	ID      string
	Private *rsa.PrivateKey
}

// NewKey generates a 2048-bit key.
func NewKey(t testing.TB, id string) *Key {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &Key{ID: id, Private: k}
}

// Provider is a running OpenID provider.
type Provider struct {
	Issuer string
	// KeyFetches counts requests for the JWKS document.
	KeyFetches atomic.Int64

	server *httptest.Server
	mu     sync.Mutex
	keys   []*Key // published
}

// Start runs a provider on 127.0.0.1 publishing keys; it stops when the test
// ends.
func Start(t testing.TB, keys ...*Key) *Provider {
	t.Helper()
	p := &Provider{keys: keys}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                p.Issuer,
			"jwks_uri":                              p.Issuer + "/keys",
			"authorization_endpoint":                p.Issuer + "/authorize",
			"token_endpoint":                        p.Issuer + "/token",
			"response_types_supported":              []string{"code"},
			"subject_types_supported":               []string{"pairwise"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		p.KeyFetches.Add(1)
		p.mu.Lock()
		set := make([]map[string]string, 0, len(p.keys))
		for _, k := range p.keys {
			set = append(set, map[string]string{
				"kty": "RSA", "use": "sig", "kid": k.ID,
				"n": b64(k.Private.N.Bytes()), "e": b64(big.NewInt(int64(k.Private.E)).Bytes()),
			})
		}
		p.mu.Unlock()
		writeJSON(w, map[string]any{"keys": set})
	})
	p.server = httptest.NewServer(mux)
	t.Cleanup(p.server.Close)
	p.Issuer = p.server.URL
	return p
}

// Publish replaces the published keys (a key rotation).
func (p *Provider) Publish(keys ...*Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = keys
}

// Claims returns valid claims for audience and the user oid, valid for an
// hour from now.
func (p *Provider) Claims(audience, oid string, roles ...string) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": p.Issuer, "aud": audience, "oid": oid, "sub": "sub-" + oid, "ver": "2.0",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
	if len(roles) > 0 {
		c["roles"] = roles
	}
	return c
}

// Sign returns claims as a JWT signed RS256 with key, naming its id.
func Sign(t testing.TB, key *Key, claims map[string]any) string {
	t.Helper()
	input := segment(t, map[string]any{"alg": "RS256", "typ": "JWT", "kid": key.ID}) + "." + segment(t, claims)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key.Private, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

// Unsigned returns claims as a JWT with alg none and no signature.
func Unsigned(t testing.TB, claims map[string]any) string {
	t.Helper()
	return segment(t, map[string]any{"alg": "none", "typ": "JWT"}) + "." + segment(t, claims) + "."
}

// SignHS256WithPublicKey returns claims as a JWT signed HS256 with the PEM
// encoding of key's public half as the secret: the algorithm confusion
// attack on verifiers that let the token choose the algorithm.
func SignHS256WithPublicKey(t testing.TB, key *Key, claims map[string]any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&key.Private.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	input := segment(t, map[string]any{"alg": "HS256", "typ": "JWT", "kid": key.ID}) + "." + segment(t, claims)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(input))
	return input + "." + b64(mac.Sum(nil))
}

// Principal encodes an App Service Authentication principal for Microsoft
// Entra ID with object id oid and roles, as X-MS-CLIENT-PRINCIPAL carries
// it.
func Principal(oid string, roles ...string) string {
	claims := []map[string]string{
		{"typ": "http://schemas.microsoft.com/identity/claims/objectidentifier", "val": oid},
		{"typ": "name", "val": "User " + oid},
	}
	for _, r := range roles {
		claims = append(claims, map[string]string{"typ": "roles", "val": r})
	}
	b, _ := json.Marshal(map[string]any{
		"auth_typ": "aad", "claims": claims,
		"name_typ": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name",
		"role_typ": "http://schemas.microsoft.com/ws/2008/06/identity/claims/role",
	})
	return base64.StdEncoding.EncodeToString(b)
}

func segment(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b64(b)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
