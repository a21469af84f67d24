// Package witness is a transparency log witness as C2SP tlog-witness
// defines it: for each log it trusts, it keeps the latest checkpoint it
// cosigned, and cosigns a new one only when a consistency proof shows
// that it extends that one. Its state is a bbolt file; the check of a
// request's old size and the write of the new checkpoint are one bbolt
// transaction, so of two requests at once one wins and the other finds
// the size moved on: the witness never rolls its view of a log back.
//
// The file holds one bucket, "checkpoints": its keys are log origins, its
// values the latest checkpoint cosigned for that origin as the monitoring
// route serves it, a signed note carrying the log's signatures the witness
// verified and the witness's cosignature.
package witness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	flog "github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/transparency/witnessproto"
)

var bucket = []byte("checkpoints")

// lockWait bounds how long Open waits for another process to release the
// state file.
const lockWait = 2 * time.Second

// Witness cosigns the checkpoints of the logs it trusts.
type Witness struct {
	db       *bbolt.DB
	signer   note.Signer
	verifier note.Verifier
	logs     map[string][]note.Verifier // by origin
	byHash   map[string]string          // origin by hex SHA-256 of it
	log      *slog.Logger
}

// Open opens (creating it if need be) the state file at path, for a
// witness signing with key, trusting the logs whose verifier keys are
// logKeys (a key's name is its log's origin; a log may have several).
func Open(path string, key *Key, logKeys []string, log *slog.Logger) (*Witness, error) {
	w := &Witness{signer: key.Signer, verifier: key.Verifier, logs: map[string][]note.Verifier{}, byHash: map[string]string{}, log: log}
	for i, k := range logKeys {
		if slices.ContainsFunc(logKeys[:i], func(o string) bool { return strings.TrimSpace(o) == strings.TrimSpace(k) }) {
			continue // a key given twice is trusted once, not made ambiguous
		}
		v, err := fnote.NewVerifier(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("log key %q: %w", k, err)
		}
		w.logs[v.Name()] = append(w.logs[v.Name()], v)
		w.byHash[OriginHash(v.Name())] = v.Name()
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockWait})
	if err != nil {
		return nil, fmt.Errorf("witness state %s: %w", path, err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("witness state %s: %w", path, err)
	}
	w.db = db
	return w, nil
}

// Close closes the state file.
func (w *Witness) Close() error { return w.db.Close() }

// OriginHash names a log in the monitoring route: the lowercase hex
// SHA-256 of its origin.
func OriginHash(origin string) string {
	sum := sha256.Sum256([]byte(origin))
	return hex.EncodeToString(sum[:])
}

// emptyRoot is the root of the empty tree: the SHA-256 of nothing.
var emptyRoot = tlog.Hash(sha256.Sum256(nil))

// Add processes an add-checkpoint request and returns the witness's
// cosignature lines. Its errors have the kinds C2SP tlog-witness gives
// statuses to: NotFound for an unknown origin, Forbidden for a checkpoint
// without a valid signature of the log, Invalid for a malformed one or an
// old size beyond it, Conflict (a *witnessproto.StaleError) for an old size that is
// not the witness's, and Unprocessable for a checkpoint the witness cannot
// show consistent with the one it cosigned.
func (w *Witness) Add(req witnessproto.Request) ([]byte, error) {
	origin, _, ok := bytes.Cut(req.Checkpoint, []byte("\n"))
	if !ok {
		return nil, todo.Errorf(todo.Invalid, "the checkpoint has no origin line")
	}
	verifiers, ok := w.logs[string(origin)]
	if !ok {
		return nil, todo.Errorf(todo.NotFound, "this witness does not know the log %q", origin)
	}
	n, err := note.Open(req.Checkpoint, note.VerifierList(verifiers...))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		if errors.As(err, &unverified) || errors.As(err, &invalid) {
			return nil, todo.Errorf(todo.Forbidden, "the checkpoint carries no valid signature of the log %q", origin)
		}
		return nil, todo.Errorf(todo.Invalid, "the checkpoint is not a signed note: %v", err)
	}
	c, err := parseCheckpoint(n.Text)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Old > c.N:
		return nil, todo.Errorf(todo.Invalid, "the old size %d is beyond the checkpoint's size %d", req.Old, c.N)
	case c.N == 0 && c.Hash != emptyRoot:
		return nil, todo.Errorf(todo.Unprocessable, "a checkpoint of size 0 must have the root of the empty tree")
	case req.Old == 0 && len(req.Proof) > 0:
		return nil, todo.Errorf(todo.Unprocessable, "a consistency proof from size 0 must be empty")
	}
	var cosig []byte
	err = w.db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucket)
		prev := tlog.Tree{Hash: emptyRoot}
		if stored := b.Get(origin); stored != nil {
			if prev, err = storedTree(stored); err != nil {
				return err
			}
		}
		if req.Old != prev.N {
			return todo.Wrap(todo.Conflict, &witnessproto.StaleError{Size: prev.N}, "the old size is not the size this witness cosigned last")
		}
		if err := consistent(req, prev, c); err != nil {
			w.log.Warn("witness: refused an inconsistent checkpoint", "origin", string(origin),
				"cosigned", prev.N, "submitted", c.N, "error", err.Error())
			return err
		}
		var latest []byte
		cosig, latest, err = w.cosign(n)
		if err != nil {
			return err
		}
		return b.Put(bytes.Clone(origin), latest)
	})
	if err != nil {
		return nil, err
	}
	return cosig, nil
}

// consistent checks that the checkpoint c of req extends prev, the tree
// the witness cosigned last.
func consistent(req witnessproto.Request, prev, c tlog.Tree) error {
	if c.N == prev.N {
		if c.Hash != prev.Hash || len(req.Proof) > 0 {
			return todo.Errorf(todo.Unprocessable, "the checkpoint of size %d has another root than the one this witness cosigned", c.N)
		}
		return nil
	}
	if prev.N == 0 {
		return nil
	}
	if err := tlog.CheckTree(req.Proof, c.N, c.Hash, prev.N, prev.Hash); err != nil {
		return todo.Errorf(todo.Unprocessable, "the consistency proof from size %d to %d does not verify", prev.N, c.N)
	}
	return nil
}

// cosign signs n's text with the witness's key, and returns the
// cosignature line and the checkpoint to keep: n's verified signatures
// and the cosignature.
func (w *Witness) cosign(n *note.Note) (line, latest []byte, err error) {
	signed, err := note.Sign(&note.Note{Text: n.Text}, w.signer)
	if err != nil {
		return nil, nil, err
	}
	own, err := note.Open(signed, note.VerifierList(w.verifier))
	if err != nil {
		return nil, nil, err
	}
	latest, err = note.Sign(&note.Note{Text: n.Text, Sigs: append(n.Sigs, own.Sigs...)})
	if err != nil {
		return nil, nil, err
	}
	return signed[len(n.Text)+1:], latest, nil
}

// Latest returns the latest checkpoint the witness cosigned for the log
// whose origin hashes to originHash, with the log's signatures and its
// cosignature; NotFound when it has cosigned none.
func (w *Witness) Latest(originHash string) ([]byte, error) {
	origin, ok := w.byHash[originHash]
	var latest []byte
	if ok {
		if err := w.db.View(func(tx *bbolt.Tx) error {
			latest = bytes.Clone(tx.Bucket(bucket).Get([]byte(origin)))
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if latest == nil {
		return nil, todo.Errorf(todo.NotFound, "this witness has cosigned no checkpoint of that log")
	}
	return latest, nil
}

// parseCheckpoint reads a checkpoint's text: origin, size and root, and
// any extension lines.
func parseCheckpoint(text string) (tlog.Tree, error) {
	var c flog.Checkpoint
	if _, err := c.Unmarshal([]byte(text)); err != nil {
		return tlog.Tree{}, todo.Errorf(todo.Invalid, "the checkpoint's text is malformed: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if c.Size > 1<<63-1 || strconv.FormatUint(c.Size, 10) != lines[1] || len(c.Hash) != tlog.HashSize {
		return tlog.Tree{}, todo.Errorf(todo.Invalid, "the checkpoint's size or root is malformed")
	}
	if slices.Contains(lines[3:], "") {
		return tlog.Tree{}, todo.Errorf(todo.Invalid, "the checkpoint has an empty extension line")
	}
	return tlog.Tree{N: int64(c.Size), Hash: tlog.Hash(c.Hash)}, nil
}

// storedTree is the tree of a checkpoint in the state file, which the
// witness wrote itself after it verified it.
func storedTree(msg []byte) (tlog.Tree, error) {
	i := bytes.LastIndex(msg, []byte("\n\n"))
	if i < 0 {
		return tlog.Tree{}, errors.New("witness state holds a checkpoint that is not a signed note")
	}
	return parseCheckpoint(string(msg[:i+1]))
}
