package hashchain

import (
	"crypto/aes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/todoaudit/todo"
)

// SaltBytes is the length of each field's salt in the encodings that
// commit to each field: enough that an erased short value (true, a
// three-letter title) cannot be found again by trying values against its
// digest.
const SaltBytes = 16

// SeedBytes is the length of a version's seed: the random bytes its salts
// follow from (see boundEncoding.salts) while none of its fields is erased, so that a
// stored version carries one short seed instead of a salt and a digest
// per field.
const SeedBytes = 16

// Audited is the content of one version that its hash covers: what the
// audit record says about the change and the snapshot it recorded, with
// the encoding and, in the second and third, the commitments.
type Audited struct {
	EntityType  string
	EntityID    string
	Version     int64
	Operation   todo.Operation
	Actor       string
	At          time.Time
	Entity      todo.Todo
	Chain       int
	Commitments todo.Commitments
}

// canonical is a length-prefixed byte string: each field is written as its
// UTF-8 byte length in decimal, a colon, and its bytes.
type canonical []byte

func (b *canonical) field(s string) {
	*b = append(appendLength(*b, len(s)), ':')
	*b = append(*b, s...)
}

// fieldHex writes s in lowercase hex as one field.
func (b *canonical) fieldHex(s []byte) {
	*b = append(appendLength(*b, hex.EncodedLen(len(s))), ':')
	*b = appendHex(*b, s)
}

func (b *canonical) fieldBytes(s []byte) {
	*b = append(appendLength(*b, len(s)), ':')
	*b = append(*b, s...)
}

// fieldInt writes n in decimal as one field.
func (b *canonical) fieldInt(n int64) {
	var digits [20]byte
	b.fieldBytes(strconv.AppendInt(digits[:0], n, 10))
}

// appendLength appends a field's length in decimal, at once for the
// lengths under 100 that most fields have.
func appendLength(b []byte, n int) []byte {
	switch {
	case n < 10:
		return append(b, byte('0'+n))
	case n < 100:
		return append(b, byte('0'+n/10), byte('0'+n%10))
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// head writes the record's own description of the change.
func (b *canonical) head(a *Audited) {
	b.field(a.EntityType)
	b.field(a.EntityID)
	b.fieldInt(a.Version)
	b.field(string(a.Operation))
	b.field(a.Actor)
	b.fieldTime(a.At)
}

// fieldTime writes t as one field: its todo.TimeKey, or the empty string
// for the zero time.
func (b *canonical) fieldTime(t time.Time) {
	if t.IsZero() {
		b.field("")
		return
	}
	var key [64]byte // a key is 30 bytes, more only past the year 9999
	b.fieldBytes(todo.AppendTimeKey(key[:0], t))
}

func (b canonical) sum() string {
	s := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	return string(appendHex(h[:0], s[:]))
}

// sameHash compares two hashes in hex in constant time.
func sameHash(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var diff byte
	for i := range len(a) {
		diff |= a[i] ^ b[i]
	}
	return diff == 0
}

// Hash returns the lowercase hex SHA-256 of prevHash and a in a's chain
// encoding; docs/chain.md documents each.
func (a *Audited) Hash(prevHash string) string {
	return chainOfTodo.hash(a, reflect.ValueOf(&a.Entity).Elem(), prevHash)
}

// hash is Audited.Hash of a with entity in place of a.Entity: "" for an
// encoding no chain has.
func (c *boundChain) hash(a *Audited, entity reflect.Value, prevHash string) string {
	e, ok := c.encoding(a.Chain)
	switch {
	case !ok:
		return ""
	case e.salts != nil:
		return a.hashCommitted(e, prevHash)
	}
	return a.hashValues(e, entity, prevHash)
}

// hashValues is the first encoding's hash: prevHash, the record's head
// and the canonical bytes of each of the encoding's fields in its order:
// integers decimal, booleans true or false, times UTC RFC 3339 with
// exactly nine fractional digits, an absent time or string the empty
// string, tags their count then each tag.
func (a *Audited) hashValues(e *boundEncoding, entity reflect.Value, prevHash string) string {
	b := make(canonical, 0, 512)
	b.field(prevHash)
	b.head(a)
	for i := range e.committed {
		p := &e.committed[i]
		p.canonical(&b, entity.FieldByIndex(p.Index))
	}
	return b.sum()
}

// hashCommitted hashes prevHash, the encoding's number, the record's head,
// and the number of commitments followed by each one's name and digest, in
// byte order of the names: in the second encoding the digest's hex, in the
// third its bytes. The values are not in it: only their digests. A third-
// encoding digest that is not 64 lowercase hex digits gives no hash (""),
// so that no other spelling of a record verifies.
func (a *Audited) hashCommitted(e *boundEncoding, prevHash string) string {
	names := make([]string, 0, len(a.Commitments))
	for name := range a.Commitments {
		names = append(names, name)
	}
	slices.Sort(names)
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	b := a.committedHead(s.head[:0], prevHash, len(names))
	for _, name := range names {
		b.field(name)
		digest := a.Commitments[name].Digest
		if e.hexDigests {
			b.field(digest)
			continue
		}
		var sum [sha256.Size]byte
		if len(digest) != hex.EncodedLen(len(sum)) || !lowerHex(digest) {
			return ""
		}
		_, _ = hex.Decode(sum[:], []byte(digest)) // checked above
		b.fieldBytes(sum[:])
	}
	s.head = b[:0] // kept, as grown, for the next hash
	return b.sum()
}

// lowerHex reports whether s is lowercase hex digits only, the one
// spelling of a digest that hex.Decode's acceptance of upper case leaves
// to be checked.
func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// committedHead starts hashCommitted's bytes in b, up to the count of n
// commitments.
func (a *Audited) committedHead(b canonical, prevHash string, n int) canonical {
	b.field(prevHash)
	b.fieldInt(int64(a.Chain))
	b.head(a)
	b.fieldInt(int64(n))
	return b
}

// sealHash is hashCommitted of a, in encoding e, with the commitments of
// entity under the salts from seed (e.commitments(entity, seed)), each
// digest written as it is computed: the hash of every write, without the
// map and the hex strings of the commitments, which the version keeps as
// its seed. With into not nil, the salts and digests are kept in it as
// well: the commitments a reader serves, derived once for the hash and
// for it.
func (a *Audited) sealHash(e *boundEncoding, entity reflect.Value, prevHash string, seed []byte, into *Derived) string {
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	b := a.committedHead(s.head[:0], prevHash, len(e.committed))
	salts := e.salts(e.committed, seed)
	d := &s.d
	if into != nil {
		*into = newDerived(e)
	}
	for _, i := range e.byName {
		p := &e.committed[i]
		b = append(b, p.nameField...)
		salt := salts[i*SaltBytes : (i+1)*SaltBytes]
		sum := d.sum(p, salt, entity)
		if e.hexDigests {
			b.fieldHex(sum[:])
		} else {
			b.fieldBytes(sum[:])
		}
		if into != nil {
			into.add(salt, &sum)
		}
	}
	s.head = b[:0]
	return b.sum()
}

// canonicalOf returns the canonical encoding of values of type t: strings
// as they are, integers in decimal, booleans true or false, times as
// fieldTime writes them (a nil time is the empty string), lists their count then
// each item, each as one length-prefixed field.
func canonicalOf(t reflect.Type) (func(b *canonical, v reflect.Value), error) {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return func(b *canonical, v reflect.Value) { b.fieldTime(v.Interface().(time.Time)) }, nil
	case t == reflect.TypeFor[*time.Time]():
		return func(b *canonical, v reflect.Value) {
			if v.IsNil() {
				b.field("")
				return
			}
			b.fieldTime(*v.Interface().(*time.Time))
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(b *canonical, v reflect.Value) { b.field(v.String()) }, nil
	case reflect.Bool:
		return func(b *canonical, v reflect.Value) { b.field(strconv.FormatBool(v.Bool())) }, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b *canonical, v reflect.Value) { b.fieldInt(v.Int()) }, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b *canonical, v reflect.Value) { b.field(strconv.FormatUint(v.Uint(), 10)) }, nil
	case reflect.Slice:
		item, err := canonicalOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(b *canonical, v reflect.Value) {
			b.fieldInt(int64(v.Len()))
			for i := range v.Len() {
				item(b, v.Index(i))
			}
		}, nil
	}
	return nil, fmt.Errorf("no canonical encoding for %s: define one in canonicalOf", t)
}

// digester computes the digests of fields, reusing its buffers from one
// field to the next.
type digester struct{ value, b canonical }

// scratch is what one hash computes in: a record's canonical head and a
// digester, sized for most records at once.
type scratch struct {
	head canonical
	d    digester
}

// scratches keeps scratch buffers from one hash to the next: every write
// and every record read hashes, and the buffers would otherwise be
// allocated each time.
var scratches = sync.Pool{New: func() any {
	return &scratch{head: make(canonical, 0, 1024), d: digester{value: make(canonical, 0, 256), b: make(canonical, 0, 512)}}
}}

// digest is the digest of one field, in lowercase hex (see sum).
func (d *digester) digest(p *committedProperty, salt []byte, entity reflect.Value) string {
	sum := d.sum(p, salt, entity)
	return hex.EncodeToString(sum[:])
}

// sum is the SHA-256 of one field: over the salt, the field's name and
// its canonical bytes, each length-prefixed.
func (d *digester) sum(p *committedProperty, salt []byte, entity reflect.Value) [sha256.Size]byte {
	d.value = d.value[:0]
	p.canonical(&d.value, entity.FieldByIndex(p.Index))
	d.b = d.b[:0]
	d.b.fieldBytes(salt)
	d.b = append(d.b, p.nameField...)
	d.b.fieldBytes(d.value)
	return sha256.Sum256(d.b)
}

// commitments returns the commitment of every field of entity that e
// lists, each with its salt from seed.
func (e *boundEncoding) commitments(entity reflect.Value, seed []byte) todo.Commitments {
	salts := e.salts(e.committed, seed)
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	d := newDerived(e)
	for _, i := range e.byName {
		salt := salts[i*SaltBytes : (i+1)*SaltBytes]
		sum := s.d.sum(&e.committed[i], salt, entity)
		d.add(salt, &sum)
	}
	return d.Commitments()
}

// Both rules of salts, hmacSalts and aesSalts, return SaltBytes for each
// of fields in order, and are pseudorandom functions of the seed over the
// field's name: knowing some salts (a record erased keeps the salts of
// the fields it did not erase) tells nothing of the others without the
// seed.

// hmacSalts are the second encoding's salts: the first SaltBytes of
// HMAC-SHA256 keyed with the seed over the field's name.
func hmacSalts(fields []committedProperty, seed []byte) []byte {
	mac := hmac.New(sha256.New, seed)
	out := make([]byte, 0, SaltBytes*len(fields)+sha256.Size)
	for i := range fields {
		mac.Reset()
		mac.Write([]byte(fields[i].Name))
		out = mac.Sum(out)[:(i+1)*SaltBytes]
	}
	return out
}

// aesSalts are the third encoding's salts: the AES-128 CBC-MAC, keyed
// with the seed, of one byte of the name's length, the name, and zero
// bytes to a whole number of blocks (the property's saltMessage). The
// leading length keeps one message from being the prefix of another, for
// which CBC-MAC is a pseudorandom function; with names under 16 bytes it
// is one AES block a field.
func aesSalts(fields []committedProperty, seed []byte) []byte {
	block, err := aes.NewCipher(seed)
	if err != nil {
		panic("todo: a seed is not an AES-128 key: " + err.Error()) // every seed is SeedBytes long
	}
	out := make([]byte, SaltBytes*len(fields))
	for i := range fields {
		mac := out[i*SaltBytes : (i+1)*SaltBytes]
		msg := fields[i].saltMessage
		for j := 0; j < len(msg); j += aes.BlockSize {
			subtle.XORBytes(mac, mac, msg[j:j+aes.BlockSize])
			block.Encrypt(mac, mac)
		}
	}
	return out
}

// parseSeed decodes a stored seed: SeedBytes in lowercase hex.
func parseSeed(s string) ([]byte, error) {
	if len(s) != 2*SeedBytes || !lowerHex(s) {
		return nil, fmt.Errorf("its seed is not %d bytes in lowercase hex", SeedBytes)
	}
	seed := make([]byte, SeedBytes)
	_, _ = hex.Decode(seed, []byte(s)) // checked above
	return seed, nil
}

// fromSeed returns the commitments a stored version's seed stands for,
// computed from entity: a version stores either a seed or its
// commitments, never both, and a seed only in an encoding that commits to
// each field.
func (c *boundChain) fromSeed(entity reflect.Value, chain int, seed string, stored todo.Commitments) (todo.Commitments, error) {
	b, err := c.seedOf(chain, seed, stored)
	if err != nil {
		return nil, err
	}
	e, _ := c.encoding(chain) // one that commits, as seedOf checked
	return e.commitments(entity, b), nil
}

// seedOf decodes the seed of a stored version of encoding chain, which
// must commit to each field, stored without commitments.
func (c *boundChain) seedOf(chain int, seed string, stored todo.Commitments) ([]byte, error) {
	switch {
	case !c.commits(chain):
		return nil, fmt.Errorf("a version of chain encoding %d has a seed", chain)
	case stored != nil:
		return nil, fmt.Errorf("a version has both a seed and commitments")
	}
	return parseSeed(seed)
}

// Seal makes t's current state the next link of its hash chain, in the
// newest encoding (Newest): the hash t was read with becomes its PrevHash, and its Hash
// covers fresh commitments of its content, with the operation, actor and
// time taken from t itself. The todo document keeps the links, so the next
// write chains on without reading anything more. Seal returns the fresh
// random seed the commitments' salts follow from, in hex: it belongs in the
// version document (see todo.NewVersion), which stores it for the commitments.
func Seal(t *todo.Todo) string {
	t.Chain = Newest
	seed := make([]byte, SeedBytes)
	_, _ = rand.Read(seed) // crypto/rand.Read never returns an error
	entity := t.Snapshot()
	a := Audited{EntityType: todo.EntityTypeTodo, EntityID: t.ID, Version: t.Version, Operation: t.LastOperation,
		Actor: t.UpdatedBy, At: t.UpdatedAt, Chain: Newest}
	e, _ := chainOfTodo.encoding(Newest) // the last of encodings, as a test checks
	t.PrevHash, t.Hash = t.Hash, a.sealHash(e, reflect.ValueOf(&entity).Elem(), t.Hash, seed, nil)
	return hex.EncodeToString(seed)
}

// Verify reports why a, stored with links prevHash and hash, is not what
// its hash covers: every field its encoding does not list (one added to
// the todo after it) must be zero; in the encodings that commit to each
// field, every field it lists must have its commitment and nothing else
// one, every value that is not erased must reproduce its digest with its
// salt, and an erased one must have neither salt nor value.
func (a *Audited) Verify(prevHash, hash string) error {
	return chainOfTodo.verify(a, reflect.ValueOf(&a.Entity).Elem(), prevHash, hash, false)
}

// verify is Verify of a with entity in place of a.Entity. derived says
// that a's commitments were computed from the entity by fromSeed, in the
// same call that verifies them: each field then has its commitment and
// reproduces its digest by construction, and only the hash is left to
// check. An entity altered in storage gives derived digests other than
// those sealed, which the hash shows.
func (c *boundChain) verify(a *Audited, entity reflect.Value, prevHash, hash string, derived bool) error {
	e, ok := c.encoding(a.Chain)
	switch {
	case !ok:
		return fmt.Errorf("unknown chain encoding %d", a.Chain)
	case e.salts == nil && a.Commitments != nil:
		return fmt.Errorf("a version of the first chain encoding has commitments")
	}
	if err := e.checkUncommitted(entity); err != nil {
		return err
	}
	if e.salts != nil && !derived {
		if err := e.checkCommitments(entity, a.Commitments); err != nil {
			return err
		}
	}
	if want := c.hash(a, entity, prevHash); !sameHash(want, hash) {
		return fmt.Errorf("its content does not match its hash")
	}
	return nil
}

// checkUncommitted refuses a value in a field that e does not list (one
// added to the todo after it).
func (e *boundEncoding) checkUncommitted(entity reflect.Value) error {
	for i := range e.uncommitted {
		if p := &e.uncommitted[i]; !entity.FieldByIndex(p.Index).IsZero() {
			return fmt.Errorf("field %s has a value, which chain encoding %d does not commit to", p.Name, e.chain)
		}
	}
	return nil
}

func (e *boundEncoding) checkCommitments(v reflect.Value, commitments todo.Commitments) error {
	if len(commitments) != len(e.committed) {
		for name := range commitments {
			if !slices.Contains(e.fields, name) {
				return fmt.Errorf("it commits to %q, which chain encoding %d does not list", name, e.chain)
			}
		}
	}
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	d := &s.d
	for i := range e.committed {
		p := &e.committed[i]
		c, ok := commitments[p.Name]
		switch {
		case !ok:
			return fmt.Errorf("field %s is not committed", p.Name)
		case c.Erased:
			if c.Salt != "" || !v.FieldByIndex(p.Index).IsZero() {
				return fmt.Errorf("field %s is erased but keeps a salt or a value", p.Name)
			}
		default:
			salt, err := hex.DecodeString(c.Salt)
			if err != nil || len(salt) < SaltBytes {
				return fmt.Errorf("field %s has no valid salt", p.Name)
			}
			if d.digest(p, salt, v) != c.Digest {
				return fmt.Errorf("field %s does not match its commitment", p.Name)
			}
		}
	}
	return nil
}

// Differs returns the first committed property in which t, a todo
// document, differs from the snapshot a recorded, or "" when t holds
// exactly that content. Erased fields are not compared.
func (a *Audited) Differs(t *todo.Todo) string {
	want := reflect.ValueOf(&a.Entity).Elem()
	got := reflect.ValueOf(t).Elem()
	for i := range chainOfTodo.committable {
		p := &chainOfTodo.committable[i]
		if a.Commitments[p.Name].Erased {
			continue
		}
		var x, y canonical
		p.canonical(&x, want.FieldByIndex(p.Index))
		p.canonical(&y, got.FieldByIndex(p.Index))
		if string(x) != string(y) {
			return p.Name
		}
	}
	return ""
}

// Erased reports whether a field of the version was erased.
func (a *Audited) Erased() bool { return a.Commitments.AnyErased() }
