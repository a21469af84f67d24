package keyvault

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/security/keyvault/azkeys"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo/transparency"
)

// fakeVault answers the Key Vault operations the signer uses, as the
// service does: a bearer challenge first, then the key's public JWK and
// ES256 signatures of the digest sent, made with a real P-256 key.
type fakeVault struct {
	key   *ecdsa.PrivateKey
	url   string
	signs int
}

var b64 = base64.RawURLEncoding

func (f *fakeVault) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer token" {
		w.Header().Set("WWW-Authenticate", `Bearer authorization="https://login.microsoftonline.com/tenant", resource="https://vault.azure.net"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.URL.Query().Get("api-version") == "" {
		http.Error(w, "no api-version", http.StatusBadRequest)
		return
	}
	kid := f.url + "/keys/log/v1"
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/keys/log/" || r.URL.Path == "/keys/log/v1"):
		pub, _ := f.key.PublicKey.Bytes() // 0x04, then x and y
		_ = json.NewEncoder(w).Encode(map[string]any{"key": map[string]any{
			"kid": kid, "kty": "EC", "crv": "P-256", "key_ops": []string{"sign", "verify"},
			"x": b64.EncodeToString(pub[1:33]), "y": b64.EncodeToString(pub[33:]),
		}})
	case r.Method == http.MethodPost && r.URL.Path == "/keys/log/v1/sign":
		var in struct{ Alg, Value string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Alg != "ES256" {
			http.Error(w, "bad sign request", http.StatusBadRequest)
			return
		}
		digest, err := b64.DecodeString(in.Value)
		if err != nil || len(digest) != 32 {
			http.Error(w, "bad digest", http.StatusBadRequest)
			return
		}
		rr, ss, err := ecdsa.Sign(rand.Reader, f.key, digest)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		f.signs++
		sig := append(rr.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
		_ = json.NewEncoder(w).Encode(map[string]any{"kid": kid, "value": b64.EncodeToString(sig)})
	default:
		http.Error(w, "no such operation "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

func startVault(t *testing.T) (*fakeVault, *azkeys.ClientOptions) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeVault{key: key}
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	o := &azkeys.ClientOptions{DisableChallengeResourceVerification: true}
	o.Transport = srv.Client()
	return f, o
}

// A checkpoint signed through the (fake) vault verifies with the verifier
// key derived from the vault's public key, by the verifier outsiders use,
// and every checkpoint is one sign call.
func TestSignsCheckpointsThroughTheVault(t *testing.T) {
	f, o := startVault(t)
	keys, err := Keys(context.Background(), f.url+"/keys/log", "todoaudit.local/log", staticToken{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(keys.VerifierKey, "todoaudit.local/log+") {
		t.Fatalf("verifier key %q", keys.VerifierKey)
	}
	c := transparency.Checkpoint{Origin: "todoaudit.local/log", Size: 7, Root: tlog.RecordHash([]byte("x"))}
	msg, err := c.Sign(keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	v, err := transparency.NewVerifier(keys.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	got, err := transparency.OpenCheckpoint(msg, v)
	if err != nil || got != c {
		t.Fatalf("opened %+v, %v", got, err)
	}
	if f.signs != 1 {
		t.Fatalf("%d sign calls", f.signs)
	}
	// Another vault key's verifier refuses it.
	g, og := startVault(t)
	other, err := Keys(context.Background(), g.url+"/keys/log/v1", "todoaudit.local/log", staticToken{}, og)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transparency.OpenCheckpoint(msg, other.Verifier); err == nil {
		t.Fatal("a checkpoint verified under another vault key")
	}
}

func TestKeyURL(t *testing.T) {
	for _, bad := range []string{"", "http://v.vault.azure.net/keys/log", "https://v.vault.azure.net/secrets/log", "https://v.vault.azure.net/keys/", "https://v.vault.azure.net/keys/a/b/c"} {
		if _, _, _, err := parseKeyURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	vault, name, version, err := parseKeyURL("https://v.vault.azure.net/keys/log/abc")
	if err != nil || vault != "https://v.vault.azure.net" || name != "log" || version != "abc" {
		t.Fatalf("%s %s %s %v", vault, name, version, err)
	}
}
