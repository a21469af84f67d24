package todo

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/internal/strictjson"
)

// The newest chain encoding lists every committed property of Todo, and
// is the one Seal writes: a field added to Todo without a new encoding
// would be left out of every new version's hash.
func TestNewestEncodingListsEveryProperty(t *testing.T) {
	if ChainNewest != len(encodings) {
		t.Fatalf("ChainNewest is %d, but the newest of encodings is %d", ChainNewest, len(encodings))
	}
	if err := chainOfTodo.checkNewest(); err != nil {
		t.Fatal(err)
	}
}

// storedHistories are the chain fixtures: histories that the code of the
// day wrote in each encoding, kept as they were and never regenerated
// (the service's tests verify them as whole histories).
var storedHistories = []string{
	"service/testdata/chain-v1-history.json",
	"service/testdata/chain-v2-history.json",
	"service/testdata/chain-v3-history.json",
}

// storedRecords returns the audit records of the chain fixtures, as
// stored.
func storedRecords(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, file := range storedHistories {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
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
			if strings.HasPrefix(e.PK[0], EntityTypeTodo+"/") {
				out = append(out, e.Doc)
			}
		}
	}
	return out
}

// todoWithPriority is Todo with one field added, as the next engineer
// would add it.
type todoWithPriority struct {
	ID     string `json:"id"`
	Type   string `json:"type" todo:"stored"`
	UserID string `json:"userId"`
	Fields
	Priority      string    `json:"priority,omitempty"`
	Version       int64     `json:"version"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	LastOperation Operation `json:"lastOperation,omitempty" todo:"stored"`
	UpdatedBy     string    `json:"updatedBy,omitempty" todo:"stored"`
	MovedFrom     string    `json:"movedFrom,omitempty"`
	MovingTo      string    `json:"movingTo,omitempty" todo:"stored"`
	PartitionKey  string    `json:"partitionKey,omitempty" todo:"stored"`
	Chain         int       `json:"chain,omitempty" todo:"link"`
	PrevHash      string    `json:"prevHash,omitempty" todo:"link"`
	Hash          string    `json:"hash,omitempty" todo:"link"`
}

// The rule for added fields, run on a copy of Todo with a priority: the
// encodings as they are say "add an encoding"; with a fourth that lists
// the field, every stored record of every encoding still verifies (a
// value put in the field of one does not), and a new version commits to
// the field.
func TestAddedFieldKeepsEveryHistory(t *testing.T) {
	props := propertiesOf(reflect.TypeFor[todoWithPriority]())
	if err := bindChain(props, encodings).checkNewest(); err == nil || !strings.Contains(err.Error(), "add an encoding") ||
		!strings.Contains(err.Error(), "priority") {
		t.Fatalf("the encodings of today over a todo with a priority: %v, want to be told to add an encoding", err)
	}
	v4 := encoding{fields: append(slices.Clip(firstFields), "priority"), salts: aesSalts}
	chain := bindChain(props, append(slices.Clip(encodings), v4))
	if err := chain.checkNewest(); err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for _, doc := range storedRecords(t) {
		if _, _, err := DecodeVerifiedRecord(doc); err != nil {
			t.Fatalf("a stored record does not verify: %v\n%s", err, doc)
		}
		a, entity := recordWithPriority(t, chain, doc)
		if err := chain.verify(&a.Audited, entity, a.prevHash, a.hash, false); err != nil {
			t.Fatalf("with a field added, a stored record of encoding %d does not verify: %v\n%s", a.Chain, err, doc)
		}
		entity.FieldByName("Priority").SetString("high")
		if err := chain.verify(&a.Audited, entity, a.prevHash, a.hash, false); err == nil {
			t.Fatalf("a stored record of encoding %d verifies with a priority its hash does not cover", a.Chain)
		}
		seen[a.Chain]++
		if a.Erased() {
			seen[-a.Chain]++
		}
	}
	if seen[0] == 0 || seen[ChainV2] == 0 || seen[ChainV3] == 0 || seen[-ChainV2] == 0 || seen[-ChainV3] == 0 {
		t.Fatalf("records checked by encoding (negative: erased): %v, want every encoding and erasures", seen)
	}

	e4, _ := chain.encoding(4)
	next := todoWithPriority{ID: "a:1", UserID: "u", Fields: Fields{Category: "a", Title: "t"}, Priority: "high", Version: 1}
	entity := reflect.ValueOf(&next).Elem()
	seed := make([]byte, SeedBytes)
	_, _ = rand.Read(seed)
	a := Audited{EntityType: EntityTypeTodo, EntityID: next.ID, Version: 1, Operation: OpCreate, Actor: "u", Chain: 4}
	hash := a.sealHash(e4, entity, "", seed)
	a.Commitments = e4.commitments(entity, seed)
	if _, ok := a.Commitments["priority"]; !ok || len(a.Commitments) != len(firstFields)+1 {
		t.Fatalf("a new version commits to %d fields, priority: %t", len(a.Commitments), ok)
	}
	if err := chain.verify(&a, entity, "", hash, false); err != nil {
		t.Fatalf("a new version does not verify: %v", err)
	}
	next.Priority = "low"
	if err := chain.verify(&a, entity, "", hash, false); err == nil {
		t.Fatal("a new version verifies with another priority")
	}
	if again := a.sealHash(e4, entity, "", seed); again == hash {
		t.Fatal("the priority does not change the hash of a new version")
	}
}

// auditedWithPriority is a record's content over a todo with a
// priority, with the links it was stored with.
type auditedWithPriority struct {
	Audited
	prevHash, hash string
}

// recordWithPriority decodes a stored record as a version of a todo with
// a priority: its entity into todoWithPriority, its commitments computed
// from its seed when it stores one.
func recordWithPriority(t *testing.T, chain *boundChain, doc []byte) (auditedWithPriority, reflect.Value) {
	t.Helper()
	var s storedRecord
	if err := strictjson.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	r := s.AuditRecord
	var entity todoWithPriority
	if err := strictjson.Unmarshal(r.Entity, &entity); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(&entity).Elem()
	a := Audited{EntityType: r.EntityType, EntityID: r.EntityID, Version: r.Version, Operation: r.Operation,
		Actor: r.Actor, At: r.DateCreatedUTC, Chain: r.Chain, Commitments: r.Commitments}
	if r.Seed != "" {
		c, err := chain.fromSeed(v, r.Chain, r.Seed, r.Commitments)
		if err != nil {
			t.Fatal(err)
		}
		a.Commitments = c
	}
	return auditedWithPriority{a, r.PrevHash, r.Hash}, v
}
