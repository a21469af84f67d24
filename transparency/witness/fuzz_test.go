package witness

import (
	"bytes"
	"testing"

	"github.com/todoaudit/todo/transparency/witnessproto"
)

// FuzzParseRequest checks that a request that parses re-encodes to the
// same bytes (there is one encoding of a request), and that the parser
// never accepts more than the specification allows.
func FuzzParseRequest(f *testing.F) {
	l := newTestLog(f, "example.com/log")
	l.grow(7, "a")
	f.Add(l.request(0, 7).Encode())
	f.Add(l.request(3, 7).Encode())
	f.Add([]byte("old 0\n\nexample.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"))
	f.Add([]byte("old 01\n\n"))
	f.Add([]byte("old -1\n\nx"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := witnessproto.ParseRequest(body)
		if err != nil {
			return
		}
		if r.Old < 0 || len(r.Proof) > witnessproto.MaxProofLines || len(r.Checkpoint) == 0 {
			t.Fatalf("accepted %q as %+v", body, r)
		}
		if got := r.Encode(); !bytes.Equal(got, body) {
			t.Fatalf("%q re-encodes as %q", body, got)
		}
	})
}
