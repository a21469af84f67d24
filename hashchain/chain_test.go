package hashchain_test

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
)

// The first encoding's hash is the one docs/chain.md defines: written out
// here field by field, independently of the code that computes it.
func TestHashV1KnownAnswer(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	e := todo.Todo{ID: "Grocery:1", Type: "todo", UserID: "alice", Fields: todo.Fields{Category: "Grocery", Title: "Milk: 2 l",
		DueDate: &due, Tags: []string{"dairy", ""}}, Version: 2, CreatedAt: at, UpdatedAt: at,
		LastOperation: todo.OpUpdate, UpdatedBy: "alice"}
	a := hashchain.Audited{EntityType: "todo", EntityID: "Grocery:1", Version: 2, Operation: todo.OpUpdate, Actor: "alice", At: at, Entity: e}
	prev := "ab"
	canonical := "2:ab" + "4:todo" + "9:Grocery:1" + "1:2" + "6:update" + "5:alice" + "30:2026-11-30T07:34:32.334000000Z" +
		"9:Grocery:1" + "4:todo" + "5:alice" + "7:Grocery" + "9:Milk: 2 l" + "0:" + "30:2026-12-01T08:00:00.000000000Z" +
		"1:2" + "5:dairy" + "0:" + "5:false" + "1:2" + "30:2026-11-30T07:34:32.334000000Z" + "30:2026-11-30T07:34:32.334000000Z" +
		"6:update" + "5:alice" + "0:" + "0:" + "0:"
	sum := sha256.Sum256([]byte(canonical))
	if got, want := a.Hash(prev), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hash %s, want %s", got, want)
	}
}

// The second encoding's hash covers the record's head and the name and
// digest of each commitment in name order, never a value.
func TestHashV2KnownAnswer(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC)
	a := hashchain.Audited{EntityType: "todo", EntityID: "Grocery:1", Version: 2, Operation: todo.OpUpdate, Actor: "alice", At: at,
		Chain: hashchain.V2, Commitments: todo.Commitments{"title": {Digest: "yz"}, "a": {Digest: "x", Salt: "00"}},
		Entity: todo.Todo{Fields: todo.Fields{Title: "not hashed"}}}
	canonical := "2:ab" + "1:2" + "4:todo" + "9:Grocery:1" + "1:2" + "6:update" + "5:alice" + "30:2026-11-30T07:34:32.334000000Z" +
		"1:2" + "1:a" + "1:x" + "5:title" + "2:yz"
	sum := sha256.Sum256([]byte(canonical))
	if got, want := a.Hash("ab"), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hash %s, want %s", got, want)
	}
}

// The third encoding's hash is the second's with the encoding's number 3
// and each digest's 32 bytes in place of its hex; a digest spelled any
// other way (in upper case, too short) gives no hash that verifies.
func TestHashV3KnownAnswer(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC)
	x, yz := strings.Repeat("0f", 32), strings.Repeat("a1", 32)
	a := hashchain.Audited{EntityType: "todo", EntityID: "Grocery:1", Version: 2, Operation: todo.OpUpdate, Actor: "alice", At: at,
		Chain: hashchain.V3, Commitments: todo.Commitments{"title": {Digest: yz}, "a": {Digest: x, Salt: "00"}},
		Entity: todo.Todo{Fields: todo.Fields{Title: "not hashed"}}}
	canonical := "2:ab" + "1:3" + "4:todo" + "9:Grocery:1" + "1:2" + "6:update" + "5:alice" + "30:2026-11-30T07:34:32.334000000Z" +
		"1:2" + "1:a" + "32:" + strings.Repeat("\x0f", 32) + "5:title" + "32:" + strings.Repeat("\xa1", 32)
	sum := sha256.Sum256([]byte(canonical))
	if got, want := a.Hash("ab"), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hash %s, want %s", got, want)
	}
	for _, digest := range []string{strings.ToUpper(x), x[2:], x + "00", strings.Repeat("g", 64)} {
		b := a
		b.Commitments = todo.Commitments{"title": {Digest: yz}, "a": {Digest: digest, Salt: "00"}}
		if got := b.Hash("ab"); got != "" {
			t.Errorf("digest %q: hash %s, want none", digest, got)
		}
	}
}

func sealed(t testing.TB) (todo.Todo, todo.Version) {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	due := at.Add(48 * time.Hour)
	td := todo.Todo{ID: "a:1", Type: todo.TypeTodo, UserID: "u", Fields: todo.Fields{Category: "a", Title: "abc", Notes: "n",
		DueDate: &due, Tags: []string{"t"}, IsCompleted: true}, Version: 1,
		CreatedAt: at, UpdatedAt: at, LastOperation: todo.OpCreate, UpdatedBy: "u", MovedFrom: "b:1", MovingTo: "c:1", PartitionKey: "p"}
	return td, todo.NewVersion(td, hashchain.Seal(&td), 0)
}

func auditedOf(t *testing.T, v todo.Version) (todo.AuditRecord, hashchain.Audited) {
	t.Helper()
	rec, err := todo.NewAuditRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	r, a, err := hashchain.DecodeRecord(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return r, a
}

// Sealing chains each version to the one before in the newest encoding;
// the version document and audit record carry the links and commitments
// beside the entity snapshot, and the todo document carries no salt.
func TestSealChains(t *testing.T) {
	td, v1 := sealed(t)
	first := td.Hash
	if td.PrevHash != "" || len(first) != 64 || td.Chain != hashchain.Newest {
		t.Fatalf("first version links %d %q %q", td.Chain, td.PrevHash, td.Hash)
	}
	td.Version, td.Title, td.LastOperation = 2, "y", todo.OpUpdate
	v2 := todo.NewVersion(td, hashchain.Seal(&td), 0)
	if td.PrevHash != first || td.Hash == first {
		t.Fatalf("second version links %q %q", td.PrevHash, td.Hash)
	}
	doc, _ := json.Marshal(td)
	if strings.Contains(string(doc), "salt") || strings.Contains(string(doc), "commitments") {
		t.Fatalf("the todo document holds the commitments: %s", doc)
	}
	for _, v := range []todo.Version{v1, v2} {
		rec, a := auditedOf(t, v)
		var entity map[string]any
		_ = json.Unmarshal(rec.Entity, &entity)
		if rec.Chain != hashchain.Newest || entity["hash"] != nil || entity["prevHash"] != nil || entity["chain"] != nil {
			t.Fatalf("record %d: chain %d, entity %v", v.Version, rec.Chain, entity)
		}
		if err := a.Verify(rec.PrevHash, rec.Hash); err != nil {
			t.Fatalf("record %d does not verify: %v", v.Version, err)
		}
	}
}

// otherValue returns a value of f's type different from f's.
func otherValue(t *testing.T, f reflect.Value) reflect.Value {
	t.Helper()
	n := reflect.New(f.Type()).Elem()
	switch v := f.Interface().(type) {
	case time.Time:
		n.Set(reflect.ValueOf(v.Add(time.Second)))
	case *time.Time:
		later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		n.Set(reflect.ValueOf(&later))
	case []string:
		n.Set(reflect.ValueOf(append([]string{"other"}, v...)))
	default:
		switch f.Kind() {
		case reflect.String:
			n.SetString(f.String() + "x")
		case reflect.Bool:
			n.SetBool(!f.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n.SetInt(f.Int() + 1)
		default:
			t.Fatalf("no other value for a %s: extend otherValue", f.Type())
		}
	}
	return n
}

// Every field of todo.Todo is committed by the newest encoding: changing
// any one in a stored record breaks the record, and re-committing it
// changes the hash. Only the three chain links are left out; a field added
// to the type is committed once an encoding lists it (which
// TestNewestEncodingListsEveryProperty asks for) unless it is tagged as
// one of them, which this test refuses.
func TestEveryFieldIsCommitted(t *testing.T) {
	_, v := sealed(t)
	rec, a := auditedOf(t, v)
	var links []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[todo.Todo]()) {
		if f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Tag.Get("todo") == "link" {
			links = append(links, name)
			continue
		}
		if _, ok := a.Commitments[name]; !ok {
			t.Errorf("field %s is not committed", name)
			continue
		}
		changed := a
		changed.Entity = a.Entity
		fv := reflect.ValueOf(&changed.Entity).Elem().FieldByIndex(f.Index)
		fv.Set(otherValue(t, fv))
		if err := changed.Verify(rec.PrevHash, rec.Hash); err == nil {
			t.Errorf("changing %s of a stored record still verifies", name)
		}
		resealed := v.Entity
		rv := reflect.ValueOf(&resealed).Elem().FieldByIndex(f.Index)
		rv.Set(otherValue(t, rv))
		if hashchain.Seal(&resealed); resealed.Hash == v.Hash {
			t.Errorf("changing %s does not change the hash", name)
		}
	}
	if strings.Join(links, ",") != "chain,prevHash,hash" {
		t.Errorf("the chain leaves out %v: only chain, prevHash and hash may be tagged todo:\"link\"", links)
	}
	if len(a.Commitments) != len(todo.Properties())-3 {
		t.Errorf("%d commitments for %d properties", len(a.Commitments), len(todo.Properties()))
	}
}

// Each field has its own salt of at least 16 bytes, fresh for every
// version: two versions with the same content share no digest, so a short
// value cannot be found by hashing guesses.
func TestSaltsAreFreshAndLong(t *testing.T) {
	_, v := sealed(t)
	_, w := sealed(t)
	_, a := auditedOf(t, v)
	_, b := auditedOf(t, w)
	if len(a.Commitments) != len(todo.Properties())-3 || v.Seed == w.Seed {
		t.Fatalf("%d commitments; seeds %q and %q", len(a.Commitments), v.Seed, w.Seed)
	}
	salts := map[string]bool{}
	for name, c := range a.Commitments {
		salt, err := hex.DecodeString(c.Salt)
		if err != nil || len(salt) < 16 {
			t.Errorf("%s: salt %q", name, c.Salt)
		}
		if b.Commitments[name].Digest == c.Digest || b.Commitments[name].Salt == c.Salt || salts[c.Salt] {
			t.Errorf("%s: the same digest or salt twice", name)
		}
		salts[c.Salt] = true
	}
}

// A version stores a seed in place of its commitments: each salt is the
// AES-128 CBC-MAC keyed with the seed of the name's length byte and the
// name, zero-padded to whole blocks (written out here with crypto/cipher's
// CBC mode and a zero IV, whose last block is the MAC, independently of
// the code), each digest follows from the salt and the value, and the
// record decodes, verifies and is handed on with the commitments the seed
// stands for.
func TestSeedStandsForCommitments(t *testing.T) {
	_, v := sealed(t)
	if v.Commitments != nil || len(v.Seed) != 2*hashchain.SeedBytes {
		t.Fatalf("version stores seed %q and commitments %v", v.Seed, v.Commitments)
	}
	seed, _ := hex.DecodeString(v.Seed)
	r, a := auditedOf(t, v)
	if r.Seed != "" || len(r.Commitments) != len(a.Commitments) {
		t.Fatalf("the decoded record keeps its seed %q or lacks its commitments", r.Seed)
	}
	block, err := aes.NewCipher(seed)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range a.Commitments {
		msg := make([]byte, 32)
		msg[0] = byte(len(name))
		msg = msg[:(1+len(name)+15)/16*16]
		copy(msg[1:], name)
		cipher.NewCBCEncrypter(block, make([]byte, 16)).CryptBlocks(msg, msg)
		if want := hex.EncodeToString(msg[len(msg)-16:]); c.Salt != want {
			t.Errorf("%s: salt %s, want %s", name, c.Salt, want)
		}
	}
	if err := a.Verify(r.PrevHash, r.Hash); err != nil {
		t.Fatal(err)
	}
	stored, _ := todo.NewAuditRecord(v)
	compact, _ := json.Marshal(stored)
	full, _ := json.Marshal(r)
	again, b, err := hashchain.DecodeRecord(full)
	if err != nil || b.Verify(again.PrevHash, again.Hash) != nil || !reflect.DeepEqual(a.Commitments, b.Commitments) {
		t.Fatalf("the record with its commitments does not decode to the same: %v", err)
	}
	if len(compact) > len(full)/2 {
		t.Errorf("the stored record is %d bytes, with its commitments %d", len(compact), len(full))
	}
	changed := stored
	changed.Seed = strings.Repeat("0", 2*hashchain.SeedBytes)
	if _, a, err := hashchain.DecodeRecord(mustJSON(t, changed)); err != nil || a.Verify(changed.PrevHash, changed.Hash) == nil {
		t.Errorf("a record with another seed verifies: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Erasing a field removes its value and salt and keeps its digest: the
// record and the next version's link still verify; a value put back
// beside an erased digest does not.
func TestErasureKeepsTheChain(t *testing.T) {
	td, v := sealed(t)
	first := v.Hash
	td.Version, td.LastOperation = 2, todo.OpUpdate
	next := todo.NewVersion(td, hashchain.Seal(&td), 0)
	rec, err := todo.NewAuditRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"title", "notes", "tags", "dueDate", "isCompleted"} {
		if err := hashchain.EraseRecord(&rec, name); err != nil {
			t.Fatalf("erase %s: %v", name, err)
		}
	}
	if err := hashchain.EraseVersion(&v, "title"); err != nil || v.Entity.Title != "" || v.Commitments["title"].Salt != "" || !v.Commitments["title"].Erased {
		t.Fatalf("erased version: %v %+v", err, v.Commitments["title"])
	}
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), `"abc"`) || strings.Contains(string(b), `"n"`) {
		t.Fatalf("an erased value is still in the record: %s", b)
	}
	got, a, err := hashchain.DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Verify(got.PrevHash, got.Hash); err != nil || got.Hash != first || next.PrevHash != first {
		t.Fatalf("the erased record does not verify or link: %v", err)
	}
	a.Entity.Title = "abc"
	if err := a.Verify(got.PrevHash, got.Hash); err == nil {
		t.Fatal("a value put back beside its erased digest verifies")
	}
	for _, name := range []string{"id", "userId", "version", "hash", "nope"} {
		if err := hashchain.EraseRecord(&rec, name); !todo.IsKind(err, todo.Invalid) {
			t.Errorf("erase %s: %v", name, err)
		}
	}
	legacy, _ := todo.NewAuditRecord(todo.VersionOf(todo.Todo{ID: "a:1", Version: 1}))
	if err := hashchain.EraseRecord(&legacy, "title"); !todo.IsKind(err, todo.Conflict) {
		t.Errorf("erasing from a first-encoding record: %v", err)
	}
}

// recordForms returns the audit record of a sealed version as stored,
// with its seed, and as served, with its commitments, and each in JSON.
func recordForms(t *testing.T) (rec, expanded todo.AuditRecord, seeded, full string) {
	t.Helper()
	_, v := sealed(t)
	rec, _ = todo.NewAuditRecord(v)
	seeded = string(mustJSON(t, rec))
	expanded, _, err := hashchain.DecodeRecord([]byte(seeded))
	if err != nil {
		t.Fatal(err)
	}
	return rec, expanded, seeded, string(mustJSON(t, expanded))
}

// Stored records are decoded as strictly as request bodies: a member given
// twice or in another case, anywhere in the record, is refused, and the
// entity handed on is the re-encoding of what was decoded.
func TestDecodeRecordIsStrict(t *testing.T) {
	rec, _, good, full := recordForms(t)
	seed := `"seed":"` + rec.Seed + `"`
	chain := func(n int) string { return `"chain":` + strconv.Itoa(n) + `,` }
	newest := chain(hashchain.Newest)
	for name, doc := range map[string][2]string{
		"case-folded entity member": {good, strings.Replace(good, `"title":"abc"`, `"title":"forged","TITLE":"abc"`, 1)},
		"duplicate entity member":   {good, strings.Replace(good, `"title":"abc"`, `"title":"forged","title":"abc"`, 1)},
		"case-folded record member": {good, strings.Replace(good, `"actor":"u"`, `"actor":"x","Actor":"u"`, 1)},
		"case-folded commitment":    {full, strings.Replace(full, `"digest":`, `"Digest":`, 1)},
		"unknown member":            {good, strings.Replace(good, `"actor":"u"`, `"actor":"u","extra":1`, 1)},
		"case-folded seed":          {good, strings.Replace(good, `"seed":`, `"Seed":`, 1)},
		"seed and commitments":      {full, strings.Replace(full, newest, newest+seed+`,`, 1)},
		"seed in the first chain":   {good, strings.Replace(good, newest, ``, 1)},
		"seed in an unknown chain":  {good, strings.Replace(good, newest, chain(hashchain.Newest+1), 1)},
		"seed in upper case":        {good, strings.Replace(good, rec.Seed, strings.ToUpper(rec.Seed), 1)},
		"short seed":                {good, strings.Replace(good, rec.Seed, rec.Seed[2:], 1)},
	} {
		if doc[1] == doc[0] || strings.ToUpper(rec.Seed) == rec.Seed {
			t.Fatalf("%s: the test did not change the record", name)
		}
		if _, _, err := hashchain.DecodeRecord([]byte(doc[1])); err == nil {
			t.Errorf("%s decodes", name)
		}
	}
	spaced := strings.Replace(good, `"title":"abc"`, `"title" : "\u0061bc"`, 1)
	r, a, err := hashchain.DecodeRecord([]byte(spaced))
	if err != nil || !strings.Contains(string(r.Entity), `"title":"abc"`) || a.Verify(r.PrevHash, r.Hash) != nil {
		t.Fatalf("the entity is not handed on as decoded: %v %s", err, r.Entity)
	}
}

// A record decoded and verified in one call gets the verdict of decoding
// and then verifying it, though the commitments it derives from its seed
// are not checked again: a value altered in storage changes the digests
// derived from it, and the hash no longer covers them.
func TestDecodeVerifiedRecord(t *testing.T) {
	rec, expanded, seeded, full := recordForms(t)
	digest := expanded.Commitments["notes"].Digest
	// Another first hex digit: the seed and the digests are random.
	other := func(h string) string {
		if h[0] == 'a' {
			return "b" + h[1:]
		}
		return "a" + h[1:]
	}
	for name, c := range map[string]struct {
		doc        string
		unverified bool
	}{
		"seeded":                                  {seeded, false},
		"with its commitments":                    {full, false},
		"seeded, a value altered":                 {strings.Replace(seeded, `"title":"abc"`, `"title":"abd"`, 1), true},
		"seeded, its seed altered":                {strings.Replace(seeded, rec.Seed, other(rec.Seed), 1), true},
		"with its commitments, a value altered":   {strings.Replace(full, `"title":"abc"`, `"title":"abd"`, 1), true},
		"with its commitments, a digest altered":  {strings.Replace(full, digest, other(digest), 1), true},
		"with its commitments, a field uncovered": {strings.Replace(full, `"notes":{`, `"note":{`, 1), true},
		"not a record":                            {`[]`, false},
	} {
		if c.doc == seeded && name != "seeded" || c.doc == full && name != "with its commitments" {
			t.Fatalf("%s: the test did not change the record", name)
		}
		r, a, err := hashchain.DecodeVerifiedRecord([]byte(c.doc))
		var unverified *hashchain.UnverifiedError
		if errors.As(err, &unverified) != c.unverified {
			t.Errorf("%s: %v", name, err)
		}
		wr, wa, werr := hashchain.DecodeRecord([]byte(c.doc))
		if werr == nil {
			werr = wa.Verify(wr.PrevHash, wr.Hash)
		}
		if (err == nil) != (werr == nil) {
			t.Errorf("%s: decoded and verified in one call: %v; one after the other: %v", name, err, werr)
		}
		if err == nil && (!reflect.DeepEqual(r, wr) || !reflect.DeepEqual(a, wa)) {
			t.Errorf("%s: decoded and verified in one call, the record or its content differ", name)
		}
		// Passed on as stored, it gets the same verdict and keeps its
		// seed, or its commitments.
		sr, sa, serr := hashchain.DecodeSealedRecord([]byte(c.doc))
		if errors.As(serr, &unverified) != c.unverified || (serr == nil) != (err == nil) {
			t.Errorf("%s: decoded as stored: %v; with its commitments: %v", name, serr, err)
		}
		if err != nil {
			continue
		}
		stored := wr
		if strings.Contains(c.doc, `"seed"`) {
			stored.Seed, stored.Commitments, wa.Commitments = rec.Seed, nil, nil
		}
		if !reflect.DeepEqual(sr, stored) || !reflect.DeepEqual(sa, wa) {
			t.Errorf("%s: decoded as stored, the record or its content differ: %+v", name, sr)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	td, v := sealed(f)
	rec, _ := todo.NewAuditRecord(v)
	b, _ := json.Marshal(rec)
	f.Add(b)
	legacy, _ := todo.NewAuditRecord(todo.VersionOf(td))
	b, _ = json.Marshal(legacy)
	f.Add(b)
	f.Add([]byte(`{"chain":2,"commitments":{"title":{"digest":"00","erased":true}},"entity":{"title":""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, a, err := hashchain.DecodeRecord(data)
		if err == nil {
			err = a.Verify(r.PrevHash, r.Hash)
		}
		if _, _, once := hashchain.DecodeVerifiedRecord(data); (once == nil) != (err == nil) {
			t.Fatalf("decoded and verified in one call: %v; one after the other: %v\n%s", once, err, data)
		}
		if _, _, sealed := hashchain.DecodeSealedRecord(data); (sealed == nil) != (err == nil) {
			t.Fatalf("decoded as stored: %v; one after the other: %v\n%s", sealed, err, data)
		}
		if err != nil {
			return
		}
		// What verifies verifies again as it is handed on.
		again, _ := json.Marshal(r)
		r2, a2, err := hashchain.DecodeRecord(again)
		if err != nil || a2.Verify(r2.PrevHash, r2.Hash) != nil {
			t.Fatalf("a verified record does not verify once re-encoded: %v\n%s\n%s", err, data, again)
		}
	})
}

// BenchmarkSeal seals one update of a todo: what every write adds to the
// hash chain.
func BenchmarkSeal(b *testing.B) {
	due := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	t := todo.Todo{ID: "Grocery:41500e6e", Type: todo.TypeTodo, UserID: "alice", Fields: todo.Fields{Category: "Grocery",
		Title: "Get more milk", Notes: "semi-skimmed", DueDate: &due, Tags: []string{"dairy"}},
		Version: 7, CreatedAt: due, UpdatedAt: due, LastOperation: todo.OpUpdate, UpdatedBy: "alice"}
	b.ReportAllocs()
	for b.Loop() {
		c := t
		hashchain.Seal(&c)
	}
}
