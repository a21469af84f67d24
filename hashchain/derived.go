package hashchain

import (
	"crypto/sha256"
	"slices"

	"github.com/todoaudit/todo"
)

// Derived are the commitments a version's seed gives, as the raw salts and
// digests its hash was checked with: what a reader serves in the first
// form for a record stored with its seed. AppendJSON writes them straight
// into an answer as todo.AuditRecord writes its Commitments, without the
// map of hex strings that Commitments builds for everything else (an
// erasure, a record stored with its commitments), which cost a history
// page a seventh of its instructions.
type Derived struct {
	e *boundEncoding
	// raw holds, for each committed field in e.byName order, its salt
	// then its digest: derivedSize bytes a field.
	raw []byte
}

const derivedSize = SaltBytes + sha256.Size

// newDerived is an empty Derived of encoding e, with room for its
// fields.
func newDerived(e *boundEncoding) Derived {
	return Derived{e: e, raw: make([]byte, 0, len(e.byName)*derivedSize)}
}

// IsZero reports whether d holds no commitments: those of a record stored
// without a seed, or not verified.
func (d Derived) IsZero() bool { return d.e == nil }

// add appends the salt and digest of the next field in name order.
func (d *Derived) add(salt []byte, sum *[sha256.Size]byte) {
	d.raw = append(append(d.raw, salt...), sum[:]...)
}

// Commitments returns d as the map every other path holds.
func (d Derived) Commitments() todo.Commitments {
	c := make(todo.Commitments, len(d.e.byName))
	all := string(appendHex(make([]byte, 0, 2*len(d.raw)), d.raw))
	const saltHex, size = 2 * SaltBytes, 2 * derivedSize
	for k, i := range d.e.byName {
		h := all[k*size : (k+1)*size]
		c[d.e.committed[i].Name] = todo.Commitment{Salt: h[:saltHex], Digest: h[saltHex:]}
	}
	return c
}

// AppendJSON appends d as the JSON object todo.AuditRecord writes for
// d.Commitments(), byte for byte: the names in byte order, each salt and
// digest in lowercase hex, which needs no escaping.
func (d Derived) AppendJSON(b []byte) ([]byte, error) {
	const digest, end = `","digest":"`, `"}`
	b = slices.Grow(b, d.e.derivedJSONSize)
	b = append(b, '{')
	for k, key := range d.e.keys {
		if k > 0 {
			b = append(b, ',')
		}
		raw := d.raw[k*derivedSize : (k+1)*derivedSize]
		n := len(b) + len(key)
		b = append(append(b, key...)[:n+2*SaltBytes], digest...)
		encodeHex(b[n:], raw[:SaltBytes])
		n = len(b)
		b = append(b[:n+2*sha256.Size], end...)
		encodeHex(b[n:], raw[SaltBytes:])
	}
	return append(b, '}'), nil
}

// sizeOfDerivedJSON is the length of what Derived.AppendJSON writes for
// the commitments of fields, whose keys are keys.
func sizeOfDerivedJSON(keys []string) int {
	n := len("{}")
	for _, key := range keys {
		n += len(key) + 2*SaltBytes + len(`","digest":"`) + 2*sha256.Size + len(`"},`)
	}
	return n
}
