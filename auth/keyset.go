package auth

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/sync/singleflight"
)

// keySet holds the provider's RS256 signing keys from its JWKS document and
// verifies token signatures with them. A token naming an unknown key id
// fetches the document again, which is how a provider's key rotation
// reaches the handler, but at most once per minRefresh: go-oidc's
// RemoteKeySet fetches on every unknown key id and every bad signature,
// so forged tokens could make each request a round trip to the provider.
// A request that finds the limit reached waits for the next fetch
// (concurrent ones share it).
type keySet struct {
	url        string
	client     *http.Client
	minRefresh time.Duration
	clock      Clock
	flight     singleflight.Group
	// fetched, when set, hears the outcome of every fetch.
	fetched func(error)

	mu          sync.Mutex
	keys        map[string]*rsa.PublicKey // by key id; nil until the first fetch succeeds
	misses      map[string]bool           // key ids the current keys lack
	fetches     int                       // attempts so far
	failures    int                       // attempts that failed since the last success
	lastTry     time.Time
	lastSuccess time.Time
	lastErr     error
	recorded    chan struct{} // closed when the first fetch succeeds
}

var (
	// errUnknownKey is a token signed by a key the provider does not
	// publish.
	errUnknownKey = errors.New("the token's key is not in the provider's key set")
	// errKeysUnavailable marks a verification that needed a fetch that
	// failed: the token may be valid, so the answer is 503, not 401.
	errKeysUnavailable = errors.New("the provider's key set cannot be fetched")
)

const (
	// maxKeySetBytes bounds the JWKS document (Entra's is a few kilobytes).
	maxKeySetBytes = 1 << 20
	// maxMisses bounds the key ids remembered as missing.
	maxMisses = 1024
)

func newKeySet(url string, client *http.Client, minRefresh time.Duration, clock Clock) *keySet {
	return &keySet{url: url, client: client, minRefresh: minRefresh, clock: clock, recorded: make(chan struct{})}
}

// verify checks token's signature and returns its payload: the compact
// serialisation only, RS256 only, one signature, a key id that names a
// key in the set.
func (k *keySet) verify(ctx context.Context, token string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return nil, err
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("a token needs exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	if kid == "" {
		return nil, errors.New("the token names no key id")
	}
	key, err := k.key(ctx, kid)
	if err != nil {
		return nil, err
	}
	return jws.Verify(key)
}

// key returns the key kid, fetching the set again once if it is unknown. A
// key id the latest fetch already lacked is refused at once until the next
// fetch may run.
func (k *keySet) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	k.mu.Lock()
	key, missed := k.keys[kid], k.misses[kid] && k.clock.Now().Sub(k.lastTry) < k.minRefresh
	k.mu.Unlock()
	switch {
	case key != nil:
		return key, nil
	case missed:
		return nil, errUnknownKey
	}
	if err := k.refresh(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", errKeysUnavailable, err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if key := k.keys[kid]; key != nil {
		return key, nil
	}
	if len(k.misses) < maxMisses {
		k.misses[kid] = true
	}
	return nil, errUnknownKey
}

// loaded reports whether a fetch has succeeded.
func (k *keySet) loaded() bool {
	select {
	case <-k.recorded:
		return true
	default:
		return false
	}
}

// state returns how many fetches failed since the last success, when the
// last fetch began and when the last successful one did.
func (k *keySet) state() (failures int, lastTry, lastSuccess time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.failures, k.lastTry, k.lastSuccess
}

// refresh fetches the set again, no sooner than minRefresh after the last
// attempt. A caller that waited while another fetch ran takes its result.
func (k *keySet) refresh(ctx context.Context) error {
	k.mu.Lock()
	seen, wait := k.fetches, k.minRefresh-k.clock.Now().Sub(k.lastTry)
	k.mu.Unlock()
	if wait > 0 && !sleep(ctx, k.clock, wait) {
		return ctx.Err()
	}
	_, err, _ := k.flight.Do("", func() (any, error) {
		k.mu.Lock()
		if k.fetches != seen {
			defer k.mu.Unlock()
			return nil, k.lastErr
		}
		k.fetches++
		k.lastTry = k.clock.Now()
		k.mu.Unlock()

		keys, err := k.fetch(context.WithoutCancel(ctx))
		k.mu.Lock()
		k.lastErr = err
		if err != nil {
			k.failures++
		} else {
			if k.keys == nil {
				close(k.recorded)
			}
			k.keys, k.misses = keys, map[string]bool{}
			k.failures, k.lastSuccess = 0, k.lastTry
		}
		k.mu.Unlock()
		if k.fetched != nil {
			k.fetched(err)
		}
		return nil, err
	})
	return err
}

// fetch reads the JWKS document. Keys that are not RSA signing keys for
// RS256 are left out, as are keys go-jose cannot read (RFC 7517 section 5:
// ignore what is not understood).
func (k *keySet) fetch(ctx context.Context) (map[string]*rsa.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch keys: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch keys: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch keys: %s", resp.Status)
	}
	if len(body) > maxKeySetBytes {
		return nil, fmt.Errorf("fetch keys: the key set is larger than %d bytes", maxKeySetBytes)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("fetch keys: %w", err)
	}
	keys := make(map[string]*rsa.PublicKey, len(doc.Keys))
	for _, raw := range doc.Keys {
		var jwk jose.JSONWebKey
		if json.Unmarshal(raw, &jwk) != nil || jwk.KeyID == "" || jwk.Use == "enc" ||
			jwk.Algorithm != "" && jwk.Algorithm != string(jose.RS256) {
			continue
		}
		if pub, ok := jwk.Key.(*rsa.PublicKey); ok && keys[jwk.KeyID] == nil {
			keys[jwk.KeyID] = pub
		}
	}
	return keys, nil
}
