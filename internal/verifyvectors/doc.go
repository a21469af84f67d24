// Package verifyvectors holds the known-answer cases the page's verifier
// (web/src/verify) is tested against: checkpoints under each key type,
// inclusion and consistency proofs, histories in every chain encoding with
// erased versions, stored records, exports, and tampered variants of each,
// every case labelled with the verdict of the Go verifier. Its test writes
// them to testdata/vectors.json (go test -run TestVectors -update) and
// fails when the committed file is not what the Go code writes now.
package verifyvectors
