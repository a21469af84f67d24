package hashchain

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// The newest chain encoding lists every committed property of todo.Todo, and
// is the one Seal writes: a field added to todo.Todo without a new encoding
// would be left out of every new version's hash.
func TestNewestEncodingListsEveryProperty(t *testing.T) {
	if Newest != len(encodings) {
		t.Fatalf("Newest is %d, but the newest of encodings is %d", Newest, len(encodings))
	}
	if err := chainOfTodo.checkNewest(); err != nil {
		t.Fatal(err)
	}
}

// storedHistory is the chain fixture of encoding n: a history that the
// code of the day wrote in it, kept as it was and never regenerated (the
// service's tests verify each as a whole history).
func storedHistory(n int) string { return fmt.Sprintf("testdata/chain-v%d-history.json", n) }

// storedRecords returns the audit records of the chain fixtures of every
// encoding, as stored.
func storedRecords(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for n := V1; n <= Newest; n++ {
		b, err := os.ReadFile(storedHistory(n))
		if err != nil {
			t.Fatalf("every chain encoding needs a stored history: %v", err)
		}
		var f struct {
			Audit []struct {
				PK  []string        `json:"pk"`
				Doc json.RawMessage `json:"doc"`
			} `json:"audit"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		for _, e := range f.Audit {
			if strings.HasPrefix(e.PK[0], todo.EntityTypeTodo+"/") {
				out = append(out, e.Doc)
			}
		}
	}
	return out
}

// todoWithAddedField is todo.Todo with one field added, "added" (a string,
// as a priority would be): its properties, those of Fields too, at the
// top level with their own tags, then the new one.
var todoWithAddedField = func() reflect.Type {
	var fields []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[todo.Todo]()) {
		if !f.Anonymous {
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
		}
	}
	added := reflect.StructField{Name: "Added", Type: reflect.TypeFor[string](), Tag: `json:"added,omitempty"`}
	return reflect.StructOf(append(fields, added))
}()

// The rule for added fields, run on a copy of todo.Todo with a field added:
// the encodings as they are say "add an encoding"; with one more that
// lists the field, every stored record of every encoding still verifies
// (a value put in the field of one does not), and a new version commits
// to the field.
func TestAddedFieldKeepsEveryHistory(t *testing.T) {
	props := todo.PropertiesOf(todoWithAddedField)
	if err := bindChain(props, encodings).checkNewest(); err == nil || !strings.Contains(err.Error(), "add an encoding") ||
		!strings.Contains(err.Error(), "added") {
		t.Fatalf("the encodings of today over a todo with a field added: %v, want to be told to add an encoding", err)
	}
	newest := &encodings[len(encodings)-1]
	next := encoding{fields: append(slices.Clip(newest.fields), "added"), salts: newest.salts, hexDigests: newest.hexDigests}
	chain := bindChain(props, append(slices.Clip(encodings), next))
	if err := chain.checkNewest(); err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for _, doc := range storedRecords(t) {
		if _, _, err := DecodeVerifiedRecord(doc); err != nil {
			t.Fatalf("a stored record does not verify: %v\n%s", err, doc)
		}
		a, entity := recordWithAddedField(t, chain, doc)
		if err := chain.verify(&a.Audited, entity, a.prevHash, a.hash, false); err != nil {
			t.Fatalf("with a field added, a stored record of encoding %d does not verify: %v\n%s", a.Chain, err, doc)
		}
		entity.FieldByName("Added").SetString("high")
		if err := chain.verify(&a.Audited, entity, a.prevHash, a.hash, false); err == nil {
			t.Fatalf("a stored record of encoding %d verifies with a value its hash does not cover", a.Chain)
		}
		n := max(a.Chain, V1)
		seen[n]++
		if a.Erased() {
			seen[-n]++
		}
	}
	for n := V1; n <= Newest; n++ {
		if seen[n] == 0 || n > V1 && seen[-n] == 0 {
			t.Fatalf("records checked by encoding (negative: erased): %v, want every encoding, and an erased record of each after the first", seen)
		}
	}

	e := chain.newest()
	entity := reflect.New(todoWithAddedField).Elem()
	entity.FieldByName("ID").SetString("a:1")
	entity.FieldByName("Title").SetString("t")
	entity.FieldByName("Added").SetString("high")
	seed := make([]byte, SeedBytes)
	_, _ = rand.Read(seed)
	a := Audited{EntityType: todo.EntityTypeTodo, EntityID: "a:1", Version: 1, Operation: todo.OpCreate, Actor: "u", Chain: e.chain}
	var derived Derived
	hash := a.sealHash(e, entity, "", seed, &derived)
	a.Commitments = e.commitments(entity, seed)
	if !reflect.DeepEqual(derived.Commitments(), a.Commitments) {
		t.Fatalf("the commitments derived with the hash are not the seed's: %v", derived.Commitments())
	}
	want, _ := json.Marshal(a.Commitments)
	if got, _ := derived.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
		t.Fatalf("derived commitments written as\n%s\nnot as the map is\nx%s", got, want)
	}
	if _, ok := a.Commitments["added"]; !ok || len(a.Commitments) != len(newest.fields)+1 {
		t.Fatalf("a new version commits to %d fields, the added one: %t", len(a.Commitments), ok)
	}
	if err := chain.verify(&a, entity, "", hash, false); err != nil {
		t.Fatalf("a new version does not verify: %v", err)
	}
	entity.FieldByName("Added").SetString("low")
	if err := chain.verify(&a, entity, "", hash, false); err == nil {
		t.Fatal("a new version verifies with another value of the added field")
	}
	if again := a.sealHash(e, entity, "", seed, nil); again == hash {
		t.Fatal("the added field does not change the hash of a new version")
	}
}

// auditedWithLinks is a record's content with the links it was stored
// with.
type auditedWithLinks struct {
	Audited
	prevHash, hash string
}

// recordWithAddedField decodes a stored record as a version of a todo
// with a field added: its entity into todoWithAddedField, its commitments
// computed from its seed when it stores one.
func recordWithAddedField(t *testing.T, chain *boundChain, doc []byte) (auditedWithLinks, reflect.Value) {
	t.Helper()
	var s storedRecord
	if err := jsondoc.UnmarshalStrict(doc, &s); err != nil {
		t.Fatal(err)
	}
	r := s.AuditRecord
	entity := reflect.New(todoWithAddedField)
	if err := jsondoc.UnmarshalStrict(r.Entity, entity.Interface()); err != nil {
		t.Fatal(err)
	}
	v := entity.Elem()
	a := Audited{EntityType: r.EntityType, EntityID: r.EntityID, Version: r.Version, Operation: r.Operation,
		Actor: r.Actor, At: r.DateCreatedUTC, Chain: r.Chain, Commitments: r.Commitments}
	if r.Seed != "" {
		c, err := chain.fromSeed(v, r.Chain, r.Seed, r.Commitments)
		if err != nil {
			t.Fatal(err)
		}
		a.Commitments = c
	}
	return auditedWithLinks{a, r.PrevHash, r.Hash}, v
}
