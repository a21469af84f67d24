package todo_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
)

// Every free-text field of a todo's content is erased, but the category,
// which ids and partition keys hold: a string field added to Fields must
// be listed in PersonalFields or here, said not to be personal.
func TestPersonalFieldsCoverFreeText(t *testing.T) {
	notPersonal := []string{"category"}
	for _, p := range todo.Properties() {
		k := p.Type.Kind()
		text := k == reflect.String || (k == reflect.Slice && p.Type.Elem().Kind() == reflect.String)
		switch {
		case p.Editable && text && !slices.Contains(todo.PersonalFields, p.Name) && !slices.Contains(notPersonal, p.Name):
			t.Errorf("field %s of Fields is free text: list it in PersonalFields, or say here why it is not personal", p.Name)
		case slices.Contains(todo.PersonalFields, p.Name) && !p.Editable:
			t.Errorf("PersonalFields lists %s, which the user does not edit", p.Name)
		}
	}
}

// Erasing a snapshot removes the values and salts of its personal fields
// that hold one, keeps their digests, so its hash still verifies, and a
// second erasure changes nothing.
func TestErasePersonal(t *testing.T) {
	tt := todo.Todo{ID: "Work:1", Type: todo.TypeTodo, UserID: "alice", Fields: todo.Fields{Category: "Work", Title: "secret", Tags: []string{"x"}},
		Version: 1, LastOperation: todo.OpCreate, UpdatedBy: "alice"}
	v := todo.NewVersion(tt, hashchain.Seal(&tt), 0)
	r, err := todo.NewAuditRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	full := r
	if err := hashchain.ExpandRecord(&full); err != nil {
		t.Fatal(err)
	}
	digest := full.Commitments["title"].Digest
	if changed, err := hashchain.ErasePersonalRecord(&r); err != nil || !changed {
		t.Fatalf("erase: %v %v", changed, err)
	}
	if !slices.Equal(r.Erased, []string{"title", "tags"}) || r.Commitments["title"].Salt != "" || r.Commitments["title"].Digest != digest || r.Commitments["notes"].Erased {
		t.Fatalf("erased %v, commitments %+v", r.Erased, r.Commitments)
	}
	if r.Seed != "" || r.Commitments["notes"].Salt != full.Commitments["notes"].Salt {
		t.Fatalf("the erased record keeps its seed %q or loses a salt it keeps", r.Seed)
	}
	if changed, err := hashchain.ErasePersonalVersion(&v); err != nil || !changed || v.Seed != "" || v.Commitments["title"].Digest != digest || !v.Commitments["tags"].Erased {
		t.Fatalf("erased version: %v %v, seed %q, commitments %+v", changed, err, v.Seed, v.Commitments)
	}
	a, err := hashchain.Content(&r)
	if err != nil || a.Verify(r.PrevHash, r.Hash) != nil || a.Entity.Title != "" || a.Entity.Tags != nil {
		t.Fatalf("erased record: %+v %v", a.Entity, err)
	}
	if changed, err := hashchain.ErasePersonalRecord(&r); err != nil || changed {
		t.Fatalf("a second erasure changed %v: %v", changed, err)
	}
}
