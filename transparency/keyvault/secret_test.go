package keyvault

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"golang.org/x/mod/sumdb/note"
)

// The Ed25519 key is read from the secret with a bearer token, and signs
// as the origin.
func TestEd25519KeysFromSecret(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "todoaudit.local/log")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer token" || r.URL.Path != "/secrets/log-ed25519" || r.URL.Query().Get("api-version") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"value": skey, "id": r.URL.String()})
	}))
	defer srv.Close()
	o := &policy.ClientOptions{Transport: srv.Client()}
	keys, err := Ed25519Keys(context.Background(), srv.URL+"/secrets/log-ed25519", "todoaudit.local/log", staticToken{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if keys.VerifierKey != vkey {
		t.Fatalf("verifier key %q, want %q", keys.VerifierKey, vkey)
	}
	if _, err := Ed25519Keys(context.Background(), srv.URL+"/secrets/log-ed25519", "other.example/log", staticToken{}, o); err == nil {
		t.Fatal("a key of another origin was accepted")
	}
	if _, err := Ed25519Keys(context.Background(), srv.URL+"/secrets/missing", "todoaudit.local/log", staticToken{}, o); err == nil {
		t.Fatal("a refused read was accepted")
	}
	if _, err := Ed25519Keys(context.Background(), srv.URL+"/keys/log", "todoaudit.local/log", staticToken{}, o); err == nil {
		t.Fatal("a key URL was accepted as a secret URL")
	}
}
