package transparency

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Checkpoint is the body of a C2SP tlog-checkpoint: the log's origin, its
// tree size and its root hash.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// Tree is the checkpoint's tree.
func (c Checkpoint) Tree() tlog.Tree { return tlog.Tree{N: c.Size, Hash: c.Root} }

// String names the checkpoint in logs and errors: origin, size and root.
func (c Checkpoint) String() string {
	return fmt.Sprintf("%s size %d root %s", c.Origin, c.Size, c.Root)
}

// body is the checkpoint's note text: origin, size and base64 root, each on
// its own line.
func (c Checkpoint) body() string {
	return c.Origin + "\n" + strconv.FormatInt(c.Size, 10) + "\n" + base64.StdEncoding.EncodeToString(c.Root[:]) + "\n"
}

// Sign returns the checkpoint as a note signed by each of signers, whose
// key names must be the origin.
func (c Checkpoint) Sign(signers ...note.Signer) ([]byte, error) {
	for _, s := range signers {
		if s.Name() != c.Origin {
			return nil, fmt.Errorf("signer %q cannot sign checkpoints of %q", s.Name(), c.Origin)
		}
	}
	return note.Sign(&note.Note{Text: c.body()}, signers...)
}

// maxNoteBytes bounds the notes this package reads.
const maxNoteBytes = 1 << 16

// OpenCheckpoint verifies a signed checkpoint note with v and parses its
// body. The origin must be v's key name; extension lines after the root are
// allowed, as C2SP tlog-checkpoint says, and ignored.
func OpenCheckpoint(msg []byte, v note.Verifier) (Checkpoint, error) {
	if len(msg) > maxNoteBytes {
		return Checkpoint{}, fmt.Errorf("checkpoint is larger than %d bytes", maxNoteBytes)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		if errors.As(err, &unverified) {
			return Checkpoint{}, fmt.Errorf("checkpoint is not signed by the key %s+%08x: only by other keys", v.Name(), v.KeyHash())
		}
		return Checkpoint{}, fmt.Errorf("checkpoint does not verify: %w", err)
	}
	c, err := ParseCheckpoint(n.Text)
	if err != nil {
		return c, err
	}
	if c.Origin != v.Name() {
		return c, fmt.Errorf("checkpoint of %q is signed by the key of %q", c.Origin, v.Name())
	}
	return c, nil
}

// ParseCheckpoint parses a checkpoint body (the note text, unsigned).
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 {
		return Checkpoint{}, errors.New("checkpoint has fewer than three lines")
	}
	c := Checkpoint{Origin: lines[0]}
	if c.Origin == "" {
		return c, errors.New("checkpoint has no origin")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return c, fmt.Errorf("checkpoint size %q is not a decimal number", lines[1])
	}
	c.Size = n
	h, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize {
		return c, fmt.Errorf("checkpoint root %q is not a base64 SHA-256 hash", lines[2])
	}
	copy(c.Root[:], h)
	return c, nil
}

// Keys are the log's signing key and its verifier key.
type Keys struct {
	Signer   note.Signer
	Verifier note.Verifier
	// VerifierKey is the public key in the signed-note verifier key format
	// (name+hash+keydata), what outsiders verify checkpoints with.
	VerifierKey string
	// Ed25519, when set, is a second key of the same name that signs every
	// checkpoint beside Signer: in Azure, an Ed25519 key (which witnesses
	// accept) beside the Key Vault ECDSA one (which they may not).
	Ed25519 *Keys
}

// Signers are the keys every checkpoint is signed with.
func (k *Keys) Signers() []note.Signer {
	if k.Ed25519 == nil {
		return []note.Signer{k.Signer}
	}
	return []note.Signer{k.Signer, k.Ed25519.Signer}
}

// Verifiers are the verifiers of Signers.
func (k *Keys) Verifiers() []note.Verifier {
	if k.Ed25519 == nil {
		return []note.Verifier{k.Verifier}
	}
	return []note.Verifier{k.Verifier, k.Ed25519.Verifier}
}

// VerifierKeys are the verifier keys of Signers, all published.
func (k *Keys) VerifierKeys() []string {
	if k.Ed25519 == nil {
		return []string{k.VerifierKey}
	}
	return []string{k.VerifierKey, k.Ed25519.VerifierKey}
}

// NewKeys reads an Ed25519 note signer key (PRIVATE+KEY+name+hash+keydata).
func NewKeys(skey string) (*Keys, error) {
	s, err := note.NewSigner(strings.TrimSpace(skey))
	if err != nil {
		return nil, fmt.Errorf("not a note signer key: %w", err)
	}
	vkey, err := verifierKeyOf(strings.TrimSpace(skey))
	if err != nil {
		return nil, err
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, err
	}
	return &Keys{Signer: s, Verifier: v, VerifierKey: vkey}, nil
}

// verifierKeyOf derives the verifier key from an Ed25519 signer key: the
// same name and hash, and the public half of the key.
func verifierKeyOf(skey string) (string, error) {
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 {
		return "", errors.New("not a note signer key")
	}
	key, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(key) != 1+32 || key[0] != 1 {
		return "", errors.New("not an Ed25519 note signer key")
	}
	return note.NewEd25519VerifierKey(parts[2], ed25519.NewKeyFromSeed(key[1:]).Public().(ed25519.PublicKey))
}

// LoadOrCreateKeys reads the signer key in path, or, when there is no such
// file, generates one named origin and writes it there (mode 0600, never
// replacing a file that appears meanwhile).
func LoadOrCreateKeys(path, origin string) (*Keys, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		k, err := NewKeys(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if k.Signer.Name() != origin {
			return nil, fmt.Errorf("%s signs as %q, not the log origin %q", path, k.Signer.Name(), origin)
		}
		return k, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	skey, _, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		return nil, err
	}
	if err := createFile(path, []byte(skey+"\n"), 0o600); errors.Is(err, os.ErrExist) {
		// Another process sharing the directory made it first.
		return LoadOrCreateKeys(path, origin)
	} else if err != nil {
		return nil, err
	}
	return NewKeys(skey)
}

// NewVerifier reads a verifier key (name+hash+keydata): Ed25519, or ECDSA
// P-256 (C2SP signature type 0x02, what a Key Vault key signs with).
func NewVerifier(vkey string) (note.Verifier, error) {
	v, err := fnote.NewVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("not a note verifier key: %w", err)
	}
	return v, nil
}

// sameTree reports whether two checkpoints describe the same tree.
func sameTree(a, b Checkpoint) bool { return a.Size == b.Size && bytes.Equal(a.Root[:], b.Root[:]) }
