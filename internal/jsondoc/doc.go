// Package jsondoc is the project's JSON machinery for stored documents
// and request bodies, each job in its own file, where encoding/json alone
// is too slow or too lenient:
//
//   - members.go skims the top-level members of an object without
//     decoding it (Each, Get), scalar.go reads one member's string or
//     integer as encoding/json would (String, StringIs, Int), and
//     valid.go checks a document as json.Valid does in one pass (Valid);
//   - escape.go and plain.go write strings escaped exactly as
//     encoding/json or log/slog escapes them (AppendString, Plain), and
//     encode.go the members and the fields of the hand-written encoders
//     of stored documents (AppendFields, AppendMember, Marshal);
//   - plan.go decodes documents of one struct type in a single pass
//     through a plan of its fields (DecoderFor, Unmarshal), leaving to
//     encoding/json what it cannot read exactly as encoding/json would;
//   - strict.go refuses what encoding/json lets through silently (a
//     member given twice, invalid UTF-8, lone surrogates: Check), and
//     strictdecode.go refuses, too, a member name that is not exactly a
//     field's (UnmarshalStrict, CheckFor).
//
// Each gives what encoding/json gives, or refuses more, and its tests
// hold it to encoding/json.
package jsondoc
