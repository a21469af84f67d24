// Package transparency is the transparency log of the audit history: an
// append-only Merkle tree (RFC 6962 hashing, golang.org/x/mod/sumdb/tlog)
// with one leaf per version of every todo, stored as C2SP tlog-tiles in
// the leases container, appended by one integrator at a time and published
// as signed C2SP tlog-checkpoint notes that are also written to write-once
// anchors. A leaf holds the version's chain hash only, never content or a
// name (see LeafV2), so the log can be served to anyone and survives the
// erasure of content.
package transparency

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/timetext"
)

// The leaf encodings, by their header line. A leaf's encoding is frozen
// once written: every leaf of every encoding keeps verifying, and a new
// encoding is a new header.
const (
	// LeafV1 names the version in clear: its entity (type, owner, id),
	// version, chain links and time. Leaves written before LeafV2 are
	// in it, and they are served to the log's administrators only.
	LeafV1 = "todoaudit/leaf/v1"
	// LeafV2 holds the version's chain hash and nothing else. The hash
	// commits to the version's identifiers (entity, owner, version, time)
	// through the chain's salted commitments, so a stranger holding the
	// log learns no user, todo, category or time from it, and cannot
	// link two leaves; the version's owner, and an auditor given its
	// records, opens it by recomputing the hash from the record.
	LeafV2 = "todoaudit/leaf/v2"
	// LeafNewest is the encoding the integrator writes.
	LeafNewest = LeafV2
)

// Leaf is what the log commits to for one version: the entity (type, owner
// and id), the version number, the version's chain links and its time.
// Each encoding writes some of it: a parsed LeafV2 leaf has its Hash only.
type Leaf struct {
	EntityType string
	Owner      string
	ID         string
	Version    int64
	Hash       string // the version's chain hash, lowercase hex
	PrevHash   string // "" for an id's first version
	At         time.Time
}

// LeafOf is the leaf of an audit record.
func LeafOf(r *todo.AuditRecord) (Leaf, error) {
	owner, ok := ownerOf(r.EntityKey, r.EntityType, r.EntityID)
	if !ok {
		return Leaf{}, fmt.Errorf("audit record %q has entity key %q, not %s/<owner>/%s", r.ID, r.EntityKey, r.EntityType, r.EntityID)
	}
	l := Leaf{EntityType: r.EntityType, Owner: owner, ID: r.EntityID, Version: r.Version, Hash: r.Hash, PrevHash: r.PrevHash, At: r.DateCreatedUTC}
	return l, l.check()
}

// ownerOf is the owner part of an entity key type/owner/id.
func ownerOf(key, typ, id string) (string, bool) {
	rest, ok := strings.CutPrefix(key, typ+"/")
	if !ok {
		return "", false
	}
	owner, ok := strings.CutSuffix(rest, "/"+id)
	return owner, ok && todo.ValidateUserID(owner) == nil
}

// EntityKey is the audit partition key of the leaf's entity.
func (l *Leaf) EntityKey() string { return l.EntityType + "/" + l.Owner + "/" + l.ID }

func (l *Leaf) check() error {
	switch {
	case l.EntityType != todo.EntityTypeTodo:
		return fmt.Errorf("entity type %q is not %q", l.EntityType, todo.EntityTypeTodo)
	case todo.ValidateUserID(l.Owner) != nil:
		return fmt.Errorf("invalid owner %q", l.Owner)
	case todo.ValidateID(l.ID) != nil:
		return fmt.Errorf("invalid id %q", l.ID)
	case l.Version < 1:
		return fmt.Errorf("invalid version %d", l.Version)
	case !isHex(l.Hash, false):
		return fmt.Errorf("hash %q is not 64 lowercase hex digits", l.Hash)
	case !isHex(l.PrevHash, true):
		return fmt.Errorf("prevHash %q is not empty or 64 lowercase hex digits", l.PrevHash)
	case l.At.IsZero():
		return fmt.Errorf("no time")
	}
	return nil
}

func isHex(s string, emptyOK bool) bool {
	if s == "" {
		return emptyOK
	}
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Encode is the leaf's bytes in the encoding the integrator writes.
func (l *Leaf) Encode() []byte { return l.EncodeAs(LeafNewest) }

// EncodeAs is the leaf's bytes in the named encoding: the header line,
// then one "name value" line each for the encoding's fields, every line
// ending in a newline. LeafV1 writes type, owner, id, version, hash, prev
// and at, LeafV2 the hash alone. Times are UTC RFC 3339 with nine
// fractional digits, so that a leaf has exactly one encoding.
func (l *Leaf) EncodeAs(header string) []byte {
	b := make([]byte, 0, 256)
	b = append(b, header...)
	b = append(b, '\n')
	for _, f := range l.fields(header) {
		b = append(b, f[0]...)
		b = append(b, ' ')
		b = append(b, f[1]...)
		b = append(b, '\n')
	}
	return b
}

// fields are the name and value of each line an encoding writes, in order.
func (l *Leaf) fields(header string) [][2]string {
	if header == LeafV2 {
		return [][2]string{{"hash", l.Hash}}
	}
	return [][2]string{
		{"type", l.EntityType}, {"owner", l.Owner}, {"id", l.ID},
		{"version", strconv.FormatInt(l.Version, 10)}, {"hash", l.Hash}, {"prev", l.PrevHash},
		{"at", todo.TimeKey(l.At)},
	}
}

// leafEncodings are the encodings a log may hold a leaf in, newest first.
var leafEncodings = [...]string{LeafV2, LeafV1}

// LoggedAs reports whether h, a leaf hash a tree holds, is l's leaf in any
// encoding: a version logged before LeafV2 stays logged as it was.
func (l *Leaf) LoggedAs(h tlog.Hash) bool {
	for _, enc := range leafEncodings {
		if tlog.RecordHash(l.EncodeAs(enc)) == h {
			return true
		}
	}
	return false
}

// Names reports whether the leaf was read from an encoding that names its
// version (LeafV1), so that its entity and version can be read from it.
func (l *Leaf) Names() bool { return l.Owner != "" }

// ParseLeaf decodes leaf bytes of any encoding, refusing anything that is
// not exactly the bytes EncodeAs gives. A LeafV2 leaf gives its Hash only.
func ParseLeaf(b []byte) (Leaf, error) {
	var l Leaf
	header, _, _ := strings.Cut(string(b), "\n")
	if header != LeafV1 && header != LeafV2 {
		return l, fmt.Errorf("not a %s or %s leaf", LeafV1, LeafV2)
	}
	names := l.fields(header)
	lines := strings.Split(string(b), "\n")
	if len(lines) != len(names)+2 || lines[len(lines)-1] != "" {
		return l, fmt.Errorf("not a %s leaf", header)
	}
	vals := map[string]string{}
	for i, f := range names {
		v, ok := strings.CutPrefix(lines[i+1], f[0]+" ")
		if !ok {
			return l, fmt.Errorf("leaf line %d is not %q", i+2, f[0])
		}
		vals[f[0]] = v
	}
	l.Hash = vals["hash"]
	if header == LeafV2 {
		if !isHex(l.Hash, false) {
			return l, fmt.Errorf("leaf: hash %q is not 64 lowercase hex digits", l.Hash)
		}
		return l, nil
	}
	l.EntityType, l.Owner, l.ID, l.PrevHash = vals["type"], vals["owner"], vals["id"], vals["prev"]
	var err error
	if l.Version, err = strconv.ParseInt(vals["version"], 10, 64); err != nil {
		return l, fmt.Errorf("leaf version %q is not a number", vals["version"])
	}
	if l.At, err = time.Parse(timetext.KeyLayout, vals["at"]); err != nil {
		return l, fmt.Errorf("leaf time %q is not UTC RFC 3339 with nine fractional digits", vals["at"])
	}
	if err := l.check(); err != nil {
		return l, fmt.Errorf("leaf: %w", err)
	}
	if string(l.EncodeAs(LeafV1)) != string(b) {
		return l, fmt.Errorf("leaf is not in its canonical encoding")
	}
	return l, nil
}
