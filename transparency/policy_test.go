package transparency

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParsePolicyRefuses(t *testing.T) {
	_, p := startWitnesses(t, testKeys, 2, 2)
	w1, w2 := p.Witnesses[0], p.Witnesses[1]
	both := "witness w1 " + w1.Key + "\nwitness w2 " + w2.Key + "\n"
	for name, text := range map[string]string{
		"no quorum":                 "witness w1 " + w1.Key + " " + w1.URL + "\n",
		"an unknown quorum":         "quorum nobody\n",
		"a log key that is not one": "log not-a-key\nquorum none\n",
		"a witness log key":         "witness w1 " + testKeys.VerifierKey + "x " + w1.URL + "\nquorum w1\n",
		"a threshold too big":       "witness w1 " + w1.Key + " " + w1.URL + "\ngroup g 2 w1\nquorum g\n",
		"an unknown keyword":        "witnesses w1\nquorum none\n",
		// What formats' parser lets through, each a weaker quorum than
		// the policy seems to say.
		"a threshold of 0":            both + "group g 0 w1 w2\nquorum g\n",
		"a group of no members":       both + "group g all\nquorum g\n",
		"a member listed twice":       both + "group g 2 w1 w1 w2\nquorum g\n",
		"a witness key listed twice":  "witness a " + w2.Key + "\nwitness b " + renamed(w2.Key, "witness.test/other") + "\ngroup g 2 a b\nquorum g\n",
		"a log key listed twice":      "log " + testKeys.VerifierKey + "\nlog " + renamed(testKeys.VerifierKey, "other.test/log") + "\nquorum none\n",
		"two quorum lines":            both + "quorum w1\nquorum none\n",
		"a quorum before its witness": "quorum w1\n" + both,
		"a carriage return":           "log " + testKeys.VerifierKey + "\r\nquorum none\n",
		"another control character":   "quorum\vnone\n",
		"non-ASCII white space":       "quorum\u00a0none\n",
	} {
		if _, err := ParsePolicy([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	none, err := ParsePolicy([]byte("log " + testKeys.VerifierKey + "\nquorum none\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := none.Check([]byte("todo.test/log\n1\nAAAA\n\n")); err != nil {
		t.Fatalf("quorum none refused a checkpoint: %v", err)
	}
	if _, err := p.Check([]byte("todo.test/log\n1\nAAAA\n\n")); !errors.Is(err, ErrNoQuorum) || !strings.Contains(err.Error(), "none of its witnesses") {
		t.Fatalf("an uncosigned checkpoint: %v", err)
	}
}

// A witness line without its URL, as the format allows, is enough for a
// verifier; only a log, which must submit, needs every URL.
func TestPolicyWithoutURLs(t *testing.T) {
	_, p := startWitnesses(t, testKeys, 2, 2)
	w1, w2 := p.Witnesses[0], p.Witnesses[1]
	q, err := ParsePolicy([]byte("log " + testKeys.VerifierKey + "\nwitness w1 " + w1.Key + " # no URL\nwitness w2 " + w2.Key + " " + w2.URL + "\ngroup g 2 w1 w2\nquorum g\n"))
	if err != nil {
		t.Fatalf("a witness without its URL: %v", err)
	}
	if q.Witnesses[0].URL != "" || q.Witnesses[1].URL != w2.URL {
		t.Errorf("URLs %q and %q, want none and %q", q.Witnesses[0].URL, q.Witnesses[1].URL, w2.URL)
	}
	if err := q.Submittable(); err == nil || !strings.Contains(err.Error(), "w1") {
		t.Errorf("a log's policy with a witness it cannot reach: %v", err)
	}
	if err := p.Submittable(); err != nil {
		t.Errorf("every witness has its URL: %v", err)
	}
	if _, err := q.Check([]byte("todo.test/log\n1\nAAAA\n\n")); !errors.Is(err, ErrNoQuorum) {
		t.Errorf("the quorum of a policy without URLs: %v", err)
	}
}

// FuzzParsePolicy checks that the policy parser never panics and that
// what it accepts is consistent: every witness has a verifier, and a
// policy that parses parses again from its text.
func FuzzParsePolicy(f *testing.F) {
	_, p := startWitnesses(f, testKeys, 2, 1)
	f.Add(string(p.Text))
	f.Add("log " + testKeys.VerifierKey + "\nquorum none\n")
	f.Add("# comment\nquorum none # trailing\n")
	f.Add("witness a " + p.Witnesses[0].Key + " " + p.Witnesses[0].URL + "\ngroup g any a\ngroup h all g\nquorum h\n")
	f.Fuzz(func(t *testing.T, text string) {
		q, err := ParsePolicy([]byte(text))
		if err != nil {
			return
		}
		for _, w := range q.Witnesses {
			if w.Verifier == nil || w.Name == "" {
				t.Fatalf("%q: witness %+v", text, w)
			}
		}
		if _, err := ParsePolicy(q.WithLogs(testKeys.VerifierKey).Text); err != nil {
			t.Fatalf("%q with the log's key added does not parse: %v", text, err)
		}
		q.Check([]byte(text))
	})
}

// renamed is the verifier key vkey under another name: the same key, its
// key hash computed for the new name as signed-note defines it.
func renamed(vkey, name string) string {
	data := strings.SplitN(vkey, "+", 3)[2]
	key, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(append([]byte(name+"\n"), key...))
	return fmt.Sprintf("%s+%08x+%s", name, binary.BigEndian.Uint32(sum[:4]), data)
}

// The quorums the format allows, at their edges, parse; a log's policy
// that already names its key under another name gains no second log line.
func TestParsePolicyAccepts(t *testing.T) {
	_, p := startWitnesses(t, testKeys, 2, 2)
	w1, w2 := p.Witnesses[0], p.Witnesses[1]
	both := "witness w1 " + w1.Key + "\n\twitness   w2 " + w2.Key + " # a comment\n"
	for name, text := range map[string]string{
		"a single witness": both + "quorum w1\n",
		"all of one":       both + "group g all w1\nquorum g\n",
		"1 of 2":           both + "group g 1 w1 w2\nquorum g\n",
		"groups of groups": both + "group a any w1\ngroup b any w2\ngroup g all a b\nquorum g\n",
		"no witnesses":     "log " + testKeys.VerifierKey + "\nquorum none\n",
	} {
		if _, err := ParsePolicy([]byte(text)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	q, err := ParsePolicy([]byte("log " + renamed(testKeys.VerifierKey, "other.test/log") + "\nquorum none\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := q.WithLogs(testKeys.VerifierKeys()...); len(got.Logs) != len(testKeys.VerifierKeys()) {
		t.Errorf("logs %q: the key listed under another name was added again", got.Logs)
	}
}
