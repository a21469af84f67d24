// Package hashchain is the versioned format of the todo's hash chain: the
// canonical bytes of a version, the per-field commitments, the seeds
// their salts follow from, the hash each version carries, and the
// sealing, verifying and erasing of versions and audit records. Its
// specification is docs/chain.md; this is its summary.
//
// Every version of a todo is one link: its hash covers its content and
// the hash of the version before, so a stored record edited, removed or
// inserted breaks the chain there. Every field is written in canonical
// bytes: its byte length in decimal, a colon and its bytes. A version's
// "chain" property names its encoding:
//
//   - V1 hashes the record's head and the values of its fields in one
//     canonical string.
//   - V2 commits to each field separately, a SHA-256 digest of a random
//     salt, the field's name and its value, and hashes the head and the
//     digests' hex in byte order of the names: a field can be erased (its
//     value and salt removed, its digest kept) and every hash still
//     verifies. The salts follow from one 16-byte seed by HMAC-SHA256,
//     which a version stores in their place while none is erased.
//   - V3 commits as V2 does, its salts the AES-128 CBC-MAC of each name
//     under the seed and its hash over the digests' bytes: about half the
//     hashing of a write.
//
// A format that has been written is frozen: each encoding has its own
// literal list of the fields it commits to (encodings.go), a record is
// verified over its encoding's list whatever the todo holds today, and a
// field added to the todo takes a new encoding, which a test asks for.
// Each encoding's hash is written out by hand in a known-answer test
// (chain_test.go), and testdata/ keeps a history each encoding wrote,
// never regenerated, which the tests here and the service's verify whole.
//
// The package imports the domain's vocabulary (package todo), never the
// reverse: the types the chain's links are stored in, todo.Todo,
// todo.Version, todo.AuditRecord and todo.Commitments, are the domain's.
package hashchain
