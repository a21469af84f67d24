package todo

// Commitment is one field of a version in the chain encodings that commit
// to each field (see package chain): the digest the version's hash
// covers, and the salt that, with the field's value in the entity,
// reproduces it. Erasing the field removes the salt and the value and
// leaves the digest.
type Commitment struct {
	// Salt is the lowercase hex of the field's random salt.
	Salt string `json:"salt,omitempty"`
	// Digest is the lowercase hex SHA-256 of the salt, the field's name
	// and its canonical bytes.
	Digest string `json:"digest"`
	Erased bool   `json:"erased,omitempty"`
}

// Commitments are the committed fields of a version by JSON name: every
// field its encoding lists.
type Commitments map[string]Commitment

// AnyErased reports whether a field of c was erased.
func (c Commitments) AnyErased() bool {
	for _, com := range c {
		if com.Erased {
			return true
		}
	}
	return false
}
