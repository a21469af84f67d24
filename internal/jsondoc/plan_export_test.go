package jsondoc

import "reflect"

// Plan is the plan of a struct type, for the tests of package
// jsondoc_test: they decode the todo types, and package todo imports
// this one.
type Plan struct{ p *plan }

// PlanFor returns the plan of t, which Exists unless t gets none.
func PlanFor(t reflect.Type) Plan { return Plan{planFor(t)} }

// Exists reports whether the type got a plan.
func (p Plan) Exists() bool { return p.p != nil }

// Decode decodes doc into what v points to through the plan alone,
// reporting whether it could.
func (p Plan) Decode(doc []byte, v any) bool { return p.p.decode(doc, reflect.ValueOf(v).Elem()) }

// Plan returns the decoder's plan.
func (d Decoder[T]) Plan() Plan { return Plan{d.p} }

// PointsToZero is pointsToZero, for the tests of package jsondoc_test.
var PointsToZero = pointsToZero
