package hashchain

import (
	"crypto/aes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/todoaudit/todo"
)

// The chain encodings a version's hash can use. A record without a
// "chain" property uses the first.
//
// An encoding is frozen once a record is written in it: its rules and its
// list of fields (see encodings) never change, so that every record keeps
// verifying over the fields it was sealed with, whatever Todo holds now.
// A field added to Todo is committed by a new encoding whose list has it,
// which every version is then written in; the records of the encodings
// before it hold the field's zero value, and verify refuses one that holds
// another (docs/chain.md, "The rule for fields added later").
const (
	// V1 hashes the entity as one canonical string of its values.
	V1 = 1
	// V2 hashes one salted commitment per field, so that a field's
	// value and salt can be erased while every hash still verifies.
	V2 = 2
	// V3 commits to each field as V2 does, for about half the
	// hashing of a write: the salts follow from the seed by AES rather than
	// one HMAC-SHA256 each, and the hash covers the digests' bytes rather
	// than their hex.
	V3 = 3
	// Newest is the encoding every version is written in now: the
	// last of encodings.
	Newest = V3
)

// firstFields are the properties of Todo when the first encoding was
// written, in their order then: what the first three encodings commit to.
// Frozen: records exist in each of them.
var firstFields = []string{"id", "type", "userId", "category", "title", "notes", "dueDate", "tags", "isCompleted",
	"version", "createdAt", "updatedAt", "lastOperation", "updatedBy", "movedFrom", "movingTo", "partitionKey"}

// encoding is the rules of one chain encoding.
type encoding struct {
	// fields are the JSON names of the properties it commits to: the
	// values the first encoding hashes, in this order; each a salted
	// commitment in the others, whose hash takes them in byte order of
	// the names.
	fields []string
	// salts derives the salts of fields from a seed; nil for the first
	// encoding, which has none.
	salts func(fields []committedProperty, seed []byte) []byte
	// hexDigests says that the hash covers each digest's hex rather than
	// its bytes.
	hexDigests bool
}

// encodings are the chain encodings, the first at index 0: a version of
// encoding n is verified by encodings[n-1], whatever today's Todo.
var encodings = []encoding{
	{fields: firstFields},
	{fields: firstFields, salts: hmacSalts, hexDigests: true},
	{fields: firstFields, salts: aesSalts},
}

// chainOfTodo are the encodings bound to the properties of Todo: what
// seals and verifies versions.
var chainOfTodo = bindChain(todo.Properties(), encodings)

// boundChain are encodings with their fields resolved to the properties
// of one todo type. A test binds them to a copy of Todo with a field
// added, to run the rule for added fields.
type boundChain struct {
	encodings []boundEncoding
	// committable are the type's properties but the chain links: what an
	// encoding may commit to, and what Differs compares.
	committable []committedProperty
}

// boundEncoding is one encoding over a todo type.
type boundEncoding struct {
	*encoding
	chain int
	// committed are the properties of fields, in their order.
	committed []committedProperty
	// byName are the indexes in committed in byte order of the names, as
	// the hash takes the commitments.
	byName []int
	// keys are the names of committed in byName order, each encoded as
	// a JSON object's key with its colon and the start of its commitment
	// up to the salt, as Derived writes them; derivedJSONSize is the
	// length of all it writes.
	keys            []string
	derivedJSONSize int
	// uncommitted are the committable properties the encoding does not
	// list: fields added after it, which its records hold as zero values.
	uncommitted []committedProperty
}

type committedProperty struct {
	todo.Property
	// nameField is the property's name as one field of a canonical
	// encoding, written once here for every hash that names it.
	nameField string
	canonical func(b *canonical, v reflect.Value)
	// saltMessage is what the third encoding's salt of the property is
	// the CBC-MAC of (see aesSalts).
	saltMessage []byte
}

// bindChain resolves encs over props. It panics, stopping every test at
// start-up, when an encoding lists a property props lacks (a field that
// records commit to cannot be removed) or a property cannot be committed.
func bindChain(props []todo.Property, encs []encoding) *boundChain {
	c := &boundChain{}
	byName := map[string]committedProperty{}
	for _, p := range props {
		if !p.Committed() {
			continue
		}
		cp := committedPropertyOf(p)
		c.committable = append(c.committable, cp)
		byName[p.Name] = cp
	}
	for i := range encs {
		e := boundEncoding{encoding: &encs[i], chain: i + 1}
		for _, name := range e.fields {
			p, ok := byName[name]
			if !ok {
				panic(fmt.Sprintf("todo: chain encoding %d commits to %s, which is not a committed property of the todo: records of it keep the field", e.chain, name))
			}
			e.committed = append(e.committed, p)
		}
		for _, p := range c.committable {
			if !slices.Contains(e.fields, p.Name) {
				e.uncommitted = append(e.uncommitted, p)
			}
		}
		e.byName = make([]int, len(e.committed))
		for j := range e.byName {
			e.byName[j] = j
		}
		slices.SortFunc(e.byName, func(x, y int) int { return strings.Compare(e.committed[x].Name, e.committed[y].Name) })
		for _, j := range e.byName {
			key, _ := json.Marshal(e.committed[j].Name) // a string always encodes
			e.keys = append(e.keys, string(key)+`:{"salt":"`)
		}
		e.derivedJSONSize = sizeOfDerivedJSON(e.keys)
		c.encodings = append(c.encodings, e)
	}
	return c
}

func committedPropertyOf(p todo.Property) committedProperty {
	c, err := canonicalOf(p.Type)
	if err != nil {
		panic(fmt.Sprintf("todo: field %s of Todo cannot be committed by the hash chain: %v", p.Name, err))
	}
	if len(p.Name) > 255 {
		panic(fmt.Sprintf("todo: field %s of Todo has a name too long for its salt: at most 255 bytes", p.Name))
	}
	msg := make([]byte, (1+len(p.Name)+aes.BlockSize-1)/aes.BlockSize*aes.BlockSize)
	msg[0] = byte(len(p.Name))
	copy(msg[1:], p.Name)
	var name canonical
	name.field(p.Name)
	return committedProperty{p, string(name), c, msg}
}

// encoding returns the encoding of a version's chain (0 is the first),
// or false for a number no encoding has.
func (c *boundChain) encoding(chain int) (*boundEncoding, bool) {
	if chain == 0 {
		chain = V1
	}
	if chain < 1 || chain > len(c.encodings) {
		return nil, false
	}
	return &c.encodings[chain-1], true
}

// newest is the encoding versions are written in.
func (c *boundChain) newest() *boundEncoding { return &c.encodings[len(c.encodings)-1] }

// commits reports whether chain commits to each field separately, with a
// salt and a digest per field: every encoding after the first.
func (c *boundChain) commits(chain int) bool {
	e, ok := c.encoding(chain)
	return ok && e.salts != nil
}

// checkNewest reports the committable properties of the todo that the
// newest encoding does not list: a new version would leave them out of
// its hash, and verify refuses a record whose uncommitted fields are not
// zero.
func (c *boundChain) checkNewest() error {
	newest := c.newest()
	if len(newest.uncommitted) == 0 {
		return nil
	}
	var missing []string
	for _, p := range newest.uncommitted {
		missing = append(missing, p.Name)
	}
	return fmt.Errorf("chain encoding %d does not list the todo's %v: add an encoding that lists every committed property "+
		"(docs/chain.md, \"The rule for fields added later\")", newest.chain, missing)
}
