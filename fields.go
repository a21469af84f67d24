package todo

import (
	"reflect"
	"slices"
	"strings"
)

// Property is one JSON property of a todo document, as the struct tags of
// Todo (and of Fields, which it embeds) define it. Everything that lists the
// todo's properties (the API's encoder and decoder, the chain's
// commitments, the checks of openapi.json) derives the list from these.
type Property struct {
	// Name is the JSON name.
	Name string
	// Index is the field's index sequence in Todo, for
	// reflect.Value.FieldByIndex.
	Index []int
	Type  reflect.Type
	// OmitEmpty is the json tag's omitempty option.
	OmitEmpty bool
	// Stored marks a property the store keeps but the API never shows
	// (todo:"stored"); Link, a hash chain link (todo:"link"), which is
	// stored too but neither committed by the chain nor in snapshots.
	Stored, Link bool
	// Stamp marks a time the service stamps a todo with (todo:"stamp"),
	// read to the millisecond and written with exactly three fractional
	// digits, so that a store sorting by its text sorts by the time.
	Stamp bool
	// Editable marks a property of Fields: what a caller sets.
	Editable bool
}

// Shown reports whether the API view of a todo shows p.
func (p *Property) Shown() bool { return !p.Stored && !p.Link }

// Committed reports whether the hash chain commits to p.
func (p *Property) Committed() bool { return !p.Link }

var properties = PropertiesOf(reflect.TypeFor[Todo]())

// Properties returns the properties of a todo document in declaration
// order, those of Fields where Todo embeds it. The caller must not modify
// them.
func Properties() []Property { return properties }

// PropertyNamed returns the property with JSON name name.
func PropertyNamed(name string) (Property, bool) {
	i := slices.IndexFunc(properties, func(p Property) bool { return p.Name == name })
	if i < 0 {
		return Property{}, false
	}
	return properties[i], true
}

// PropertiesOf returns the properties of t, a struct type shaped as Todo
// is (its fields tagged as Todo's are, embedding Fields at most): what the
// chain's tests bind its encodings to when they add a field to a copy of
// Todo. It panics on a field it cannot name or classify.
func PropertiesOf(t reflect.Type) []Property {
	fieldsType := reflect.TypeFor[Fields]()
	var out []Property
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous {
			if f.Type != fieldsType {
				panic("todo: Todo embeds " + f.Type.String() + ": only Fields may be embedded")
			}
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			panic("todo: field " + f.Name + " of Todo has no JSON name")
		}
		p := Property{Name: name, Index: f.Index, Type: f.Type, OmitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty"),
			Editable: len(f.Index) > 1}
		switch tag := f.Tag.Get("todo"); tag {
		case "":
		case "stored":
			p.Stored = true
		case "link":
			p.Link = true
		case "stamp":
			p.Stamp = true
		default:
			panic("todo: field " + f.Name + " of Todo has an unknown todo tag " + tag)
		}
		out = append(out, p)
	}
	return out
}

// Snapshot returns t as versions and audit records keep it: without the
// chain links, which they carry beside it.
func (t Todo) Snapshot() Todo {
	v := reflect.ValueOf(&t).Elem()
	for _, p := range Properties() {
		if p.Link {
			f := v.FieldByIndex(p.Index)
			f.SetZero()
		}
	}
	return t
}
