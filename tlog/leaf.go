// Package tlog is the transparency log of the audit history: an
// append-only Merkle tree (RFC 6962 hashing, golang.org/x/mod/sumdb/tlog)
// with one leaf per version of every todo, stored as C2SP tlog-tiles in
// the leases container, appended by one integrator at a time and published
// as signed C2SP tlog-checkpoint notes that are also written to write-once
// anchors. A leaf holds identifiers and hashes only, never content, so the
// log can be handed to auditors and survives the erasure of content.
package tlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/timetext"
)

// leafHeader is the first line of every leaf: the encoding and its version.
const leafHeader = "todoaudit/leaf/v1"

// Leaf is what the log commits to for one version: the entity (type, owner
// and id), the version number, the version's chain links and its time.
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

// Encode is the leaf's bytes: the header line, then one "name value" line
// each for type, owner, id, version, hash, prev and at, every line ending in
// a newline. Times are UTC RFC 3339 with nine fractional digits, so that a
// leaf has exactly one encoding.
func (l *Leaf) Encode() []byte {
	b := make([]byte, 0, 256)
	b = append(b, leafHeader+"\n"...)
	for _, f := range l.fields() {
		b = append(b, f[0]...)
		b = append(b, ' ')
		b = append(b, f[1]...)
		b = append(b, '\n')
	}
	return b
}

func (l *Leaf) fields() [7][2]string {
	return [7][2]string{
		{"type", l.EntityType}, {"owner", l.Owner}, {"id", l.ID},
		{"version", strconv.FormatInt(l.Version, 10)}, {"hash", l.Hash}, {"prev", l.PrevHash},
		{"at", todo.TimeKey(l.At)},
	}
}

// ParseLeaf decodes leaf bytes, refusing anything that is not exactly the
// encoding Encode gives.
func ParseLeaf(b []byte) (Leaf, error) {
	var l Leaf
	lines := strings.Split(string(b), "\n")
	if len(lines) != 9 || lines[0] != leafHeader || lines[8] != "" {
		return l, fmt.Errorf("not a %s leaf", leafHeader)
	}
	var vals [7]string
	for i, name := range [7]string{"type", "owner", "id", "version", "hash", "prev", "at"} {
		v, ok := strings.CutPrefix(lines[i+1], name+" ")
		if !ok {
			return l, fmt.Errorf("leaf line %d is not %q", i+2, name)
		}
		vals[i] = v
	}
	l.EntityType, l.Owner, l.ID, l.Hash, l.PrevHash = vals[0], vals[1], vals[2], vals[4], vals[5]
	var err error
	if l.Version, err = strconv.ParseInt(vals[3], 10, 64); err != nil {
		return l, fmt.Errorf("leaf version %q is not a number", vals[3])
	}
	if l.At, err = time.Parse(timetext.KeyLayout, vals[6]); err != nil {
		return l, fmt.Errorf("leaf time %q is not UTC RFC 3339 with nine fractional digits", vals[6])
	}
	if err := l.check(); err != nil {
		return l, fmt.Errorf("leaf: %w", err)
	}
	if string(l.Encode()) != string(b) {
		return l, fmt.Errorf("leaf is not in its canonical encoding")
	}
	return l, nil
}
