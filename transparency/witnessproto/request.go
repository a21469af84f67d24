// Package witnessproto is the C2SP tlog-witness protocol as a log and a
// witness speak it: the add-checkpoint request's one encoding, the stale
// answer (409 with the witness's size), and a client that submits a
// request. The witness itself (its state, keys and HTTP face) is package
// witness; the log needs only this.
package witnessproto

import (
	"bytes"
	"encoding/base64"
	"strconv"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
)

// MaxProofLines is the most consistency proof lines a request may carry,
// as C2SP tlog-witness allows.
const MaxProofLines = 63

// maxCheckpointBytes bounds the checkpoint of a request: signed-note
// asks a verifier to accept at least 16 signatures, and a post-quantum
// one is up to about 6 kB in base64.
const maxCheckpointBytes = 1 << 17

// MaxRequestBytes bounds an add-checkpoint body: the old size line, the
// proof lines and the checkpoint.
const MaxRequestBytes = maxCheckpointBytes + (MaxProofLines+2)*64

// Request is an add-checkpoint request body: the size of the checkpoint
// the client believes the witness cosigned last, a consistency proof
// from it, and the new checkpoint (a signed note).
type Request struct {
	Old        int64
	Proof      tlog.TreeProof
	Checkpoint []byte
}

// Encode writes the request body as C2SP tlog-witness defines it.
func (r Request) Encode() []byte {
	b := append([]byte("old "), strconv.FormatInt(r.Old, 10)...)
	b = append(b, '\n')
	for _, h := range r.Proof {
		b = base64.StdEncoding.AppendEncode(b, h[:])
		b = append(b, '\n')
	}
	b = append(b, '\n')
	return append(b, r.Checkpoint...)
}

// ParseRequest reads an add-checkpoint body: an "old N" line (decimal,
// no leading zeroes), at most 63 base64 hash lines, an empty line, and
// the checkpoint. Anything else is Invalid.
func ParseRequest(body []byte) (Request, error) {
	var r Request
	if len(body) > MaxRequestBytes {
		return r, todo.Errorf(todo.TooLarge, "the request is larger than %d bytes", MaxRequestBytes)
	}
	line, rest, ok := bytes.Cut(body, []byte("\n"))
	if !ok {
		return r, todo.Errorf(todo.Invalid, "the request has no old size line")
	}
	n, ok := bytes.CutPrefix(line, []byte("old "))
	if !ok {
		return r, todo.Errorf(todo.Invalid, "the request's first line is not \"old <size>\"")
	}
	old, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || old < 0 || strconv.FormatInt(old, 10) != string(n) {
		return r, todo.Errorf(todo.Invalid, "the old size %q is not a decimal number without leading zeroes", n)
	}
	r.Old = old
	for {
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		if !ok {
			return r, todo.Errorf(todo.Invalid, "the request has no empty line before its checkpoint")
		}
		if len(line) == 0 {
			break
		}
		if len(r.Proof) == MaxProofLines {
			return r, todo.Errorf(todo.Invalid, "the request has more than %d proof lines", MaxProofLines)
		}
		d, err := base64.StdEncoding.Strict().DecodeString(string(line))
		if err != nil || len(d) != tlog.HashSize {
			return r, todo.Errorf(todo.Invalid, "proof line %d is not a base64 SHA-256 hash", len(r.Proof)+1)
		}
		r.Proof = append(r.Proof, tlog.Hash(d))
	}
	if len(rest) == 0 {
		return r, todo.Errorf(todo.Invalid, "the request has no checkpoint")
	}
	r.Checkpoint = rest
	return r, nil
}
