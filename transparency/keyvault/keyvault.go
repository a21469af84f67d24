// Package keyvault signs the transparency log's checkpoints with a Key
// Vault key through the app's identity, so that the private key never
// leaves the vault. Key Vault has no Ed25519, so the key is ECDSA P-256 and
// the signatures are C2SP signed-note type 0x02 (ECDSA with SHA-256 over
// the note text, ASN.1 DER): the verifier key is name+hash+base64(0x02 ||
// the key's SubjectPublicKeyInfo), its hash the first four bytes of the
// SHA-256 of that SubjectPublicKeyInfo.
package keyvault

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/security/keyvault/azkeys"
	fnote "github.com/transparency-dev/formats/note"

	"github.com/todoaudit/todo/transparency"
)

// algECDSAWithSHA256 is the C2SP signed-note signature type of ECDSA keys.
const algECDSAWithSHA256 = 0x02

// signTimeout bounds one signing call: the note signer interface takes
// no context.
const signTimeout = 30 * time.Second

// Signer signs notes with one Key Vault key.
type Signer struct {
	client       *azkeys.Client
	name         string
	key, version string
	hash         uint32
}

// Keys returns the log's keys signing with the Key Vault key at keyURL
// (https://<vault>/keys/<name>[/<version>]) under the key name origin. It
// reads the key's public half once, to derive the verifier key.
func Keys(ctx context.Context, keyURL, origin string, cred azcore.TokenCredential, o *azkeys.ClientOptions) (*transparency.Keys, error) {
	vault, name, version, err := parseKeyURL(keyURL)
	if err != nil {
		return nil, err
	}
	client, err := azkeys.NewClient(vault, cred, o)
	if err != nil {
		return nil, err
	}
	resp, err := client.GetKey(ctx, name, version, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the log signing key %s: %w", keyURL, err)
	}
	k := resp.Key
	if k == nil || k.Kty == nil || (*k.Kty != azkeys.KeyTypeEC && *k.Kty != azkeys.KeyTypeECHSM) || k.Crv == nil || *k.Crv != azkeys.CurveNameP256 {
		return nil, fmt.Errorf("the log signing key %s is not an EC P-256 key", keyURL)
	}
	if len(k.X) != 32 || len(k.Y) != 32 {
		return nil, fmt.Errorf("the log signing key %s has coordinates of %d and %d bytes, not 32", keyURL, len(k.X), len(k.Y))
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, k.X...), k.Y...))
	if err != nil {
		return nil, fmt.Errorf("the log signing key %s: %w", keyURL, err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("the log signing key %s: %w", keyURL, err)
	}
	if version == "" && k.KID != nil {
		version = k.KID.Version() // sign with the version read, not whichever is newest later
	}
	sum := sha256.Sum256(der)
	hash := binary.BigEndian.Uint32(sum[:4])
	vkey := fmt.Sprintf("%s+%08x+%s", origin, hash, base64.StdEncoding.EncodeToString(append([]byte{algECDSAWithSHA256}, der...)))
	v, err := fnote.NewVerifier(vkey)
	if err != nil {
		return nil, err
	}
	s := &Signer{client: client, name: origin, key: name, version: version, hash: hash}
	return &transparency.Keys{Signer: s, Verifier: v, VerifierKey: vkey}, nil
}

// parseKeyURL splits a Key Vault key identifier into the vault URL, the
// key name and its version ("" for the newest).
func parseKeyURL(s string) (vault, name, version string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" {
		return "", "", "", fmt.Errorf("LOG_SIGNING_KEY_ID %q is not a Key Vault key URL https://<vault>/keys/<name>[/<version>]", s)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "keys" || parts[1] == "" {
		return "", "", "", fmt.Errorf("LOG_SIGNING_KEY_ID %q is not a Key Vault key URL https://<vault>/keys/<name>[/<version>]", s)
	}
	if len(parts) == 3 {
		version = parts[2]
	}
	return "https://" + u.Host, parts[1], version, nil
}

// Name is the key name: the log's origin.
func (s *Signer) Name() string { return s.name }

// KeyHash is the C2SP key hash of the key.
func (s *Signer) KeyHash() uint32 { return s.hash }

// Sign has Key Vault sign the SHA-256 of msg (ES256) and returns the
// signature in ASN.1 DER, as C2SP type 0x02 wants it; Key Vault answers
// r and s concatenated.
func (s *Signer) Sign(msg []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), signTimeout)
	defer cancel()
	digest := sha256.Sum256(msg)
	alg := azkeys.SignatureAlgorithmES256
	resp, err := s.client.Sign(ctx, s.key, s.version, azkeys.SignParameters{Algorithm: &alg, Value: digest[:]}, nil)
	if err != nil {
		return nil, fmt.Errorf("the vault did not sign: %w", err)
	}
	raw := resp.Result
	if len(raw) != 64 {
		return nil, fmt.Errorf("the vault answered a signature of %d bytes, not 64", len(raw))
	}
	return asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(raw[:32]), new(big.Int).SetBytes(raw[32:])})
}
