// Package authtest is a local OpenID provider for tests: discovery and a
// JWKS document on a loopback port, signing keys that can be rotated, an
// outage of either, and tokens minted well or badly (expired, alg none,
// HS256 keyed with the public key, signed by a key the provider does not
// publish). It also encodes App Service Authentication principals, and has
// a fake clock for the entra mode.
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
	// KeyFetches counts requests for the JWKS document, failed ones too.
	KeyFetches atomic.Int64
	// Now, when set, is the time Claims mints tokens at (a fake clock's).
	Now func() time.Time

	server   *httptest.Server
	stopped  chan struct{} // closed when the test ends
	keysDown atomic.Bool
	mu       sync.Mutex
	keys     []*Key        // published
	hold     chan struct{} // when not nil, discovery waits for it to close
}

// Start runs a provider on 127.0.0.1 publishing keys; it stops when the test
// ends.
func Start(t testing.TB, keys ...*Key) *Provider {
	t.Helper()
	p := &Provider{keys: keys, stopped: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		hold := p.hold
		p.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			case <-p.stopped:
				return
			}
		}
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
		if p.keysDown.Load() {
			http.Error(w, "the key set is down", http.StatusServiceUnavailable)
			return
		}
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
	t.Cleanup(func() {
		close(p.stopped)
		p.server.Close()
	})
	p.Issuer = p.server.URL
	return p
}

// KeysDown makes the JWKS document answer 503 while down is true: an
// outage of the provider's key set.
func (p *Provider) KeysDown(down bool) { p.keysDown.Store(down) }

// HoldDiscovery makes requests for the OpenID configuration hang, as a
// provider that accepts connections but does not answer, until release is
// called.
func (p *Provider) HoldDiscovery() (release func()) {
	hold := make(chan struct{})
	p.mu.Lock()
	p.hold = hold
	p.mu.Unlock()
	return sync.OnceFunc(func() {
		p.mu.Lock()
		p.hold = nil
		p.mu.Unlock()
		close(hold)
	})
}

// Publish replaces the published keys (a key rotation).
func (p *Provider) Publish(keys ...*Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = keys
}

// Claims returns valid claims for audience and the user oid, valid for an
// hour from now (from Now, when set).
func (p *Provider) Claims(audience, oid string, roles ...string) map[string]any {
	now := time.Now()
	if p.Now != nil {
		now = p.Now()
	}
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
	return SignPayload(t, key, encode(t, claims))
}

// SignPayload is Sign of a payload as it is: claims a map cannot hold, a
// name given twice among them.
func SignPayload(t testing.TB, key *Key, payload []byte) string {
	t.Helper()
	header, body := rs256Header(t, key), b64(payload)
	return header + "." + body + "." + signRS256(t, key, header+"."+body)
}

// SignJSONSerialization returns claims signed as Sign does, in the JWS JSON
// serialisation (RFC 7515 section 7.2.2) instead of the compact one.
func SignJSONSerialization(t testing.TB, key *Key, claims map[string]any) string {
	t.Helper()
	header, body := rs256Header(t, key), segment(t, claims)
	return string(encode(t, map[string]string{"protected": header, "payload": body, "signature": signRS256(t, key, header+"."+body)}))
}

func rs256Header(t testing.TB, key *Key) string {
	return segment(t, map[string]any{"alg": "RS256", "typ": "JWT", "kid": key.ID})
}

// signRS256 returns the base64url RS256 signature of input by key.
func signRS256(t testing.TB, key *Key, input string) string {
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key.Private, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return b64(sig)
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

func segment(t testing.TB, v any) string { return b64(encode(t, v)) }

func encode(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
