package service

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/wI2L/jsondiff"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/store"
)

// Change is one user-editable field that differs between two versions:
// its value before and after (null when absent), and for a list (the
// tags) the elements added and removed. A field erased in either version is
// always listed, with Erased set and the string "erased" for the value of
// each version that lost it: whether it changed cannot be known any more.
type Change struct {
	Field   string   `json:"field"`
	From    any      `json:"from"`
	To      any      `json:"to"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Erased  bool     `json:"erased,omitempty"`
}

// ErasedValue stands for an erased value in a Change.
const ErasedValue = "erased"

// withErased adds to cs, the changes between fields whose values are from
// and to (fieldValues), the fields erased in either (erasedA, erasedB), in
// place of what comparing their emptied values said.
func withErased(cs []Change, from, to fieldValueList, erasedA, erasedB []string) []Change {
	if len(erasedA) == 0 && len(erasedB) == 0 {
		return cs
	}
	for i, f := range changeOrder {
		inA, inB := slices.Contains(erasedA, f), slices.Contains(erasedB, f)
		if !inA && !inB {
			continue
		}
		cs = slices.DeleteFunc(cs, func(c Change) bool { return c.Field == f })
		c := Change{Field: f, From: from[i], To: to[i], Erased: true}
		if inA {
			c.From = ErasedValue
		}
		if inB {
			c.To = ErasedValue
		}
		cs = append(cs, c)
	}
	slices.SortStableFunc(cs, func(x, y Change) int { return slices.Index(changeOrder, x.Field) - slices.Index(changeOrder, y.Field) })
	return cs
}

// editable are the user-editable properties of a todo, in the order
// todo.Fields declares them: the fields a change can name, in the order
// changes are listed in.
var editable = func() []todo.Property {
	var out []todo.Property
	for _, p := range todo.Properties() {
		if p.Editable {
			out = append(out, p)
		}
	}
	return out
}()

// changeOrder are the names of editable, in its order.
var changeOrder = func() []string {
	out := make([]string, len(editable))
	for i, p := range editable {
		out[i] = p.Name
	}
	return out
}()

// changes lists the user-editable fields that differ from a to b, whose
// values are from and to (fieldValues, which a history computes once a
// version): those whose JSON values differ, as a JSON Patch between the
// two sets of fields would name them. The bookkeeping fields (version,
// updatedAt, updatedBy, lastOperation), which change with every version,
// are not changes; the record's own version, time and actor say those.
func changes(a, b todo.Fields, from, to fieldValueList) []Change {
	out := []Change{}
	for i := range editable {
		p := &editable[i]
		if sameValue(from[i], to[i]) {
			continue
		}
		c := Change{Field: p.Name, From: from[i], To: to[i]}
		if p.Type == reflect.TypeFor[[]string]() {
			x, y := listOf(a, p), listOf(b, p)
			c.Added, c.Removed = elementsNotIn(y, x), elementsNotIn(x, y)
		}
		out = append(out, c)
	}
	return out
}

// sameValue reports whether two values of fieldValues are equal: at once
// for the strings, booleans and absent values most fields hold, by
// reflect.DeepEqual for the rest.
func sameValue(x, y any) bool {
	switch x := x.(type) {
	case string:
		y, ok := y.(string)
		return ok && x == y
	case bool:
		y, ok := y.(bool)
		return ok && x == y
	case nil:
		return y == nil
	}
	return reflect.DeepEqual(x, y)
}

// listOf is the value of f's list property p.
func listOf(f todo.Fields, p *todo.Property) []string {
	t := todo.Todo{Fields: f}
	return reflect.ValueOf(&t).Elem().FieldByIndex(p.Index).Interface().([]string)
}

// fieldValueList are the values of a todo's editable properties, in
// their order: a property absent from the JSON object is nil.
type fieldValueList []any

// fieldValues is f as its JSON object's properties decode into values
// of any type (strings, booleans, float64 numbers, lists, times as their
// RFC 3339 text), a property omitted when empty absent: taken from the
// fields by kind, which a history does for every record, rather than
// through an encoding and a decoding of them.
func fieldValues(f todo.Fields) fieldValueList {
	t := todo.Todo{Fields: f}
	v := reflect.ValueOf(&t).Elem()
	values := make(fieldValueList, len(editable))
	for i := range editable {
		p := &editable[i]
		x := v.FieldByIndex(p.Index)
		if p.OmitEmpty && (x.IsZero() || x.Kind() == reflect.Slice && x.Len() == 0) {
			continue
		}
		values[i] = jsonValue(x)
	}
	return values
}

// jsonValue is x as its JSON encoding decodes into a value of any type.
func jsonValue(x reflect.Value) any {
	switch {
	case x.Kind() == reflect.String:
		return x.String()
	case x.Kind() == reflect.Bool:
		return x.Bool()
	case (x.Kind() == reflect.Pointer || x.Kind() == reflect.Slice) && x.IsNil():
		return nil
	case x.Type() == reflect.TypeFor[*time.Time]():
		return x.Interface().(*time.Time).Format(time.RFC3339Nano)
	case x.Kind() == reflect.Slice && x.Type().Elem().Kind() == reflect.String:
		out := make([]any, x.Len())
		for i := range out {
			out[i] = x.Index(i).String()
		}
		return out
	}
	b, _ := json.Marshal(x.Interface())
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// elementsNotIn returns the elements of xs that ys lacks, each as many
// times as xs has it more often.
func elementsNotIn(xs, ys []string) []string {
	left := map[string]int{}
	for _, y := range ys {
		left[y]++
	}
	var out []string
	for _, x := range xs {
		if left[x] > 0 {
			left[x]--
			continue
		}
		out = append(out, x)
	}
	return out
}

// HistoryItem is one audit record of a history with what it changed
// against the version before it: absent (nil) for version 1 and when the
// version before is not in the audit, an empty list when no editable field
// changed (a delete, say).
type HistoryItem struct {
	todo.AuditRecord
	Changes *[]Change `json:"changes,omitempty"`
	// Unverified, when set, says why the record, served as stored, does
	// not verify.
	Unverified string `json:"unverified,omitempty"`
	// derived, for a record stored with its seed and served with its
	// commitments (History), are the commitments the seed gives, which
	// AppendJSON writes in place of the seed (see Served).
	derived hashchain.Derived
}

// Served returns the record as the item's answer shows it: with the
// commitments its seed gives in place of the seed, for an item of
// History; else as it is held.
func (it HistoryItem) Served() todo.AuditRecord {
	r := it.AuditRecord
	if !it.derived.IsZero() {
		r.Commitments, r.Seed = it.derived.Commitments(), ""
	}
	return r
}

// AppendJSON appends it as json.Marshal encodes the item with its record
// as Served returns it: the record's properties (by its own AppendJSON),
// then its changes and its mark. Without it the record's AppendJSON,
// promoted, would leave them out.
func (it HistoryItem) AppendJSON(b []byte) ([]byte, error) {
	var more []byte
	if it.Changes != nil {
		var err error
		if more, err = appendChanges(append(more, `,"changes":`...), *it.Changes); err != nil {
			return nil, err
		}
	}
	if it.Unverified != "" {
		more = jsondoc.AppendMember(more, `,"unverified":`, it.Unverified)
	}
	if !it.derived.IsZero() {
		return it.AuditRecord.AppendJSONWith(b, it.derived, more)
	}
	return it.AuditRecord.AppendJSONAnd(b, more)
}

// appendChanges appends cs as json.Marshal encodes it, the values of
// fieldValues (strings, booleans, nulls and lists of strings) without
// reflection: every item of a history page has its changes.
func appendChanges(b []byte, cs []Change) ([]byte, error) {
	return appendArray(b, cs, func(b []byte, c Change) ([]byte, error) {
		b = jsondoc.AppendMember(b, `{"field":`, c.Field)
		var err error
		if b, err = appendValue(append(b, `,"from":`...), c.From); err != nil {
			return nil, err
		}
		if b, err = appendValue(append(b, `,"to":`...), c.To); err != nil {
			return nil, err
		}
		if len(c.Added) > 0 {
			b = jsondoc.AppendStrings(append(b, `,"added":`...), c.Added)
		}
		if len(c.Removed) > 0 {
			b = jsondoc.AppendStrings(append(b, `,"removed":`...), c.Removed)
		}
		if c.Erased {
			b = append(b, `,"erased":true`...)
		}
		return append(b, '}'), nil
	})
}

// appendValue appends v, a value of fieldValues, as json.Marshal encodes
// it.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsondoc.AppendString(b, v, jsondoc.JSON), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case []any:
		return appendArray(b, v, appendValue)
	}
	x, err := json.Marshal(v)
	return append(b, x...), err
}

// appendArray appends xs as json.Marshal encodes a slice, each item as
// item appends it: null for a nil slice.
func appendArray[T any](b []byte, xs []T, item func([]byte, T) ([]byte, error)) ([]byte, error) {
	if xs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = item(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// Diff is what changed between two versions of a todo: the fields, and a
// JSON Patch (RFC 6902) that turns the entity of version From into that
// of version To.
type Diff struct {
	From    int64          `json:"from"`
	To      int64          `json:"to"`
	Changes []Change       `json:"changes"`
	Patch   jsondiff.Patch `json:"patch"`
}

// Diff compares versions from and to of the caller's todo id, each read
// from its audit record (or its retained version document while the audit
// lags): two point reads.
func (s *Service) Diff(ctx context.Context, id string, from, to int64) (Diff, error) {
	user, err := caller(ctx)
	if err != nil {
		return Diff{}, err
	}
	pk, err := s.scheme.Resolve(user, id)
	if err != nil {
		return Diff{}, err
	}
	if from < 1 || to < 1 {
		return Diff{}, todo.Errorf(todo.Invalid, "from and to must be versions, 1 or more")
	}
	// Only versions that verify are compared, as rollback restores only
	// those.
	var va, vb *verified
	v, _, _, err := s.walk(ctx, user, id, pk, true, max(from, to), nil, func(x *verified) {
		switch x.Record.Version {
		case from:
			va = x
		case to:
			vb = x
		}
		if from == to {
			vb = va
		}
	})
	switch {
	case err != nil:
		return Diff{}, err
	case !v.Verified && max(from, to) >= v.BrokenAt:
		return Diff{}, unverified(id, max(from, to), v)
	case va == nil || vb == nil:
		return Diff{}, todo.Errorf(todo.NotFound, "version %d or %d of todo %q not found", from, to, id)
	}
	a, b := va.Audited.Entity, vb.Audited.Entity
	d := Diff{From: from, To: to}
	av, bv := fieldValues(a.Fields), fieldValues(b.Fields)
	d.Changes = withErased(changes(a.Fields, b.Fields, av, bv), av, bv, va.Audited.Commitments.ErasedNames(), vb.Audited.Commitments.ErasedNames())
	if d.Patch, err = jsondiff.Compare(a, b); err != nil {
		return Diff{}, todo.Wrap(todo.Internal, err, "versions do not compare")
	}
	if d.Patch == nil {
		d.Patch = jsondiff.Patch{}
	}
	return d, nil
}

// addChanges sets each history item's changes against the version before
// it: the item before it on the page, or for the page's first item, a
// point read of the version before. The items are decoded records, whose
// Erased DecodeRecord set, and entities the todos it decoded from them.
func (s *Service) addChanges(ctx context.Context, user, id string, items []HistoryItem, entities []todo.Todo) error {
	var prev *todo.Todo
	var prevValues fieldValueList
	var prevErased []string
	for i := range items {
		r := &items[i].AuditRecord
		cur := &entities[i]
		if i == 0 && r.Version > 1 {
			p, err := s.audit.GetIn(ctx, store.PartitionKey{todo.EntityKey(user, id)}, todo.AuditID(id, r.Version-1))
			if err != nil && !todo.IsKind(err, todo.NotFound) {
				return err
			}
			var t todo.Todo
			if err == nil && json.Unmarshal(p.Value.Entity, &t) == nil {
				prev, prevValues, prevErased = &t, fieldValues(t.Fields), p.Value.Commitments.ErasedNames()
			}
		}
		values := fieldValues(cur.Fields)
		if prev != nil && prev.Version == r.Version-1 {
			c := withErased(changes(prev.Fields, cur.Fields, prevValues, values), prevValues, values, prevErased, r.Erased)
			items[i].Changes = &c
		}
		prev, prevValues, prevErased = cur, values, r.Erased
	}
	return nil
}
