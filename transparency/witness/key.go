package witness

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// The key types a witness can cosign with (C2SP tlog-cosignature).
const (
	Ed25519 = "ed25519" // cosignature/v1, signature type 0x04
	MLDSA44 = "mldsa44" // ML-DSA-44, signature type 0x06, which the specification recommends
)

// Key is a witness's cosigning key.
type Key struct {
	Signer   note.Signer
	Verifier note.Verifier
	// VerifierKey is what logs and clients put in their policies.
	VerifierKey string
}

// NewKey reads a key file: the signer key (PRIVATE+KEY+name+hash+keydata)
// on its first line, its verifier key on the second. The two must be
// halves of one key: a signature of the one must verify with the other.
func NewKey(file string) (*Key, error) {
	skey, vkey, _ := strings.Cut(strings.TrimSpace(file), "\n")
	s, err := fnote.NewSignerForCosignatureV1(strings.TrimSpace(skey))
	if err != nil {
		return nil, fmt.Errorf("not a cosignature signer key: %w", err)
	}
	vkey = strings.TrimSpace(vkey)
	v, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil {
		return nil, fmt.Errorf("not a cosignature verifier key: %w", err)
	}
	probe, err := note.Sign(&note.Note{Text: s.Name() + "\n0\n" + base64.StdEncoding.EncodeToString(emptyRoot[:]) + "\n"}, s)
	if err == nil {
		_, err = note.Open(probe, note.VerifierList(v))
	}
	if err != nil || v.Name() != s.Name() || v.KeyHash() != s.KeyHash() {
		return nil, errors.New("the verifier key is not the signer key's")
	}
	return &Key{Signer: s, Verifier: v, VerifierKey: vkey}, nil
}

// GenerateKey makes a key of type typ (Ed25519 or MLDSA44) named name,
// and returns its key file: the signer key and the verifier key, a line
// each.
func GenerateKey(name, typ string) (string, error) {
	var skey, vkey string
	var err error
	switch typ {
	case Ed25519:
		if skey, vkey, err = note.GenerateKey(rand.Reader, name); err == nil {
			vkey, err = fnote.VKeyToCosignatureV1(vkey)
		}
	case MLDSA44:
		skey, vkey, err = fnote.GenerateMLDSAKey(name)
	default:
		err = fmt.Errorf("unknown key type %q: %s or %s", typ, Ed25519, MLDSA44)
	}
	return skey + "\n" + vkey + "\n", err
}

// LoadOrCreateKey reads the key file at path, or, when there is none,
// generates one of type typ named name and writes it there (mode 0600,
// never replacing a file). The key's name must be name.
func LoadOrCreateKey(path, name, typ string) (*Key, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		file, gerr := GenerateKey(name, typ)
		if gerr != nil {
			return nil, gerr
		}
		f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if ferr != nil {
			return nil, ferr
		}
		_, werr := f.WriteString(file)
		if serr := f.Sync(); werr == nil {
			werr = serr
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, werr
		}
		b = []byte(file)
	} else if err != nil {
		return nil, err
	}
	k, err := NewKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if k.Signer.Name() != name {
		return nil, fmt.Errorf("%s is the key of %q, not of %q", path, k.Signer.Name(), name)
	}
	return k, nil
}
