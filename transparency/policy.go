package transparency

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	fwitness "github.com/transparency-dev/formats/witness"
	"golang.org/x/mod/sumdb/note"
)

// maxPolicyBytes bounds a policy file.
const maxPolicyBytes = 1 << 16

// Policy is a C2SP tlog-policy: the log's keys, the witnesses that cosign
// its checkpoints and the quorum of them a checkpoint needs. The quorum
// is evaluated by formats' witness.Group; the rest is kept to name the
// witnesses and groups in reports.
type Policy struct {
	// Text is the policy as written, what GET /api/log/policy serves.
	Text []byte
	// Logs are the verifier keys of its log lines.
	Logs      []string
	Witnesses []PolicyWitness
	quorum    fwitness.Group
	// quorumName and groups describe the quorum in words.
	quorumName string
	groups     map[string][]string // name → threshold and members
}

// PolicyWitness is a witness line: its name in the policy, its
// cosignature verifier key, and its submission prefix.
type PolicyWitness struct {
	Name     string
	Key      string
	URL      string
	Verifier note.Verifier
}

// Cosignature is a valid cosignature of a witness of the policy.
type Cosignature struct {
	Witness string    `json:"witness"`
	Time    time.Time `json:"time"`
}

// ParsePolicy reads a policy file. A witness line's submission URL is
// optional, as the format allows: a verifier needs only the witness's key,
// and a log submits only to the witnesses that have one (see
// Policy.Submittable). Besides what formats' parser checks, it refuses
// what the format forbids and that parser lets through, each of which
// could weaken the quorum a verifier applies: control characters, a log
// or witness key listed twice (under any name), a group without members,
// a threshold of 0, a member listed twice in a group, a quorum line naming
// what is defined only after it, and more than one quorum line.
func ParsePolicy(text []byte) (*Policy, error) {
	if len(text) > maxPolicyBytes {
		return nil, fmt.Errorf("the policy is larger than %d bytes", maxPolicyBytes)
	}
	for i, b := range text {
		if b < 0x20 && b != '\t' && b != '\n' || b == 0x7f {
			return nil, fmt.Errorf("not a tlog-policy: control character 0x%02x at byte %d (only tab and newline are allowed)", b, i)
		}
	}
	g, err := fwitness.ParsePolicy(withURLs(text))
	if err != nil {
		return nil, fmt.Errorf("not a tlog-policy: %w", err)
	}
	p := &Policy{Text: bytes.Clone(text), quorum: g, groups: map[string][]string{}}
	defined := map[string]bool{"none": true}
	listed := map[string]string{} // a kind and a key's material → the line that listed it
	listOnce := func(kind, vkey, line string) error {
		k := kind + " " + keyMaterial(vkey)
		if first, ok := listed[k]; ok {
			return fmt.Errorf("not a tlog-policy: %q lists the key of %q again", line, first)
		}
		listed[k] = line
		return nil
	}
	quorums := 0
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := policyFields(line)
		if len(f) == 0 {
			continue
		}
		if !slices.Equal(f, strings.Fields(line)) {
			return nil, fmt.Errorf("not a tlog-policy: white space other than spaces and tabs in %q", line)
		}
		switch f[0] {
		case "log":
			if len(f) < 2 || len(f) > 3 {
				return nil, fmt.Errorf("not a tlog-policy: invalid log line %q", line)
			}
			if _, err := NewVerifier(f[1]); err != nil {
				return nil, fmt.Errorf("not a tlog-policy: log line %q: %w", line, err)
			}
			if err := listOnce("log", f[1], line); err != nil {
				return nil, err
			}
			p.Logs = append(p.Logs, f[1])
		case "witness":
			v, err := fnote.NewVerifierForCosignatureV1(f[2])
			if err != nil {
				return nil, err
			}
			w := PolicyWitness{Name: f[1], Key: f[2], Verifier: v}
			if len(f) > 3 {
				w.URL = f[3]
			}
			if err := listOnce("witness", w.Key, line); err != nil {
				return nil, err
			}
			p.Witnesses = append(p.Witnesses, w)
			defined[w.Name] = true
		case "group":
			members := f[3:]
			if k, err := strconv.Atoi(f[2]); len(members) == 0 || err == nil && k < 1 {
				return nil, fmt.Errorf("not a tlog-policy: group %q needs at least one member and a threshold of at least 1", f[1])
			}
			for i, m := range members {
				if slices.Contains(members[:i], m) {
					return nil, fmt.Errorf("not a tlog-policy: group %q lists %q twice", f[1], m)
				}
			}
			p.groups[f[1]] = f[2:]
			defined[f[1]] = true
		case "quorum":
			if quorums++; quorums > 1 {
				return nil, errors.New("not a tlog-policy: more than one quorum line")
			}
			if !defined[f[1]] {
				return nil, fmt.Errorf("not a tlog-policy: the quorum %q is not defined on a line before it", f[1])
			}
			p.quorumName = f[1]
		}
	}
	return p, sc.Err()
}

// policyFields splits a policy line at its white space, which the format
// says is spaces and tabs only.
func policyFields(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
}

// keyMaterial is the public key a verifier key wraps, the part after its
// name and key hash (base64, which may hold a "+" of its own): two keys
// are one key when it is the same, whatever their names.
func keyMaterial(vkey string) string {
	f := strings.SplitN(vkey, "+", 3)
	m := f[len(f)-1]
	if b, err := base64.StdEncoding.DecodeString(m); err == nil {
		return string(b)
	}
	return m
}

// placeholderURL stands in for a witness line's missing URL for formats'
// parser, which requires one; the witness keeps no URL.
const placeholderURL = "https://no-submission-url.invalid/"

// withURLs is text with placeholderURL added to the witness lines that
// have no URL.
func withURLs(text []byte) []byte {
	lines := bytes.Split(text, []byte("\n"))
	for i, line := range lines {
		code, comment, commented := bytes.Cut(line, []byte("#"))
		if f := bytes.Fields(code); len(f) == 3 && string(f[0]) == "witness" {
			l := append(bytes.Join(f, []byte(" ")), " "+placeholderURL...)
			if commented {
				l = append(append(l, " #"...), comment...)
			}
			lines[i] = l
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// Submittable reports a witness the policy gives no submission URL: the
// log cannot ask it to cosign, so a log's own policy must give every
// witness one.
func (p *Policy) Submittable() error {
	for _, w := range p.Witnesses {
		if w.URL == "" {
			return fmt.Errorf("witness %s has no submission URL: the log cannot ask it to cosign", w.Name)
		}
	}
	return nil
}

// Cosigners returns the witnesses of the policy whose cosignature of the
// checkpoint msg is valid, each with the time it states.
func (p *Policy) Cosigners(msg []byte) []Cosignature {
	var out []Cosignature
	for _, w := range p.Witnesses {
		n, err := note.Open(msg, note.VerifierList(w.Verifier))
		if err != nil || len(n.Sigs) == 0 {
			continue
		}
		t, err := fnote.CoSigV1Timestamp(n.Sigs[0])
		if err != nil {
			continue
		}
		out = append(out, Cosignature{Witness: w.Name, Time: t.UTC()})
	}
	return out
}

// Check returns the valid cosignatures of msg, and an error naming the
// quorum when they do not make it.
func (p *Policy) Check(msg []byte) ([]Cosignature, error) {
	signed := p.Cosigners(msg)
	if p.quorum.Satisfied(msg) {
		return signed, nil
	}
	names := make([]string, len(signed))
	for i, c := range signed {
		names[i] = c.Witness
	}
	who := "none of its witnesses"
	if len(names) > 0 {
		who = "only " + strings.Join(names, ", ")
	}
	return signed, fmt.Errorf("%w %s: cosigned by %s", ErrNoQuorum, p.describe(p.quorumName), who)
}

// describe says what the quorum component name needs, in the policy's
// words.
func (p *Policy) describe(name string) string {
	g, ok := p.groups[name]
	if !ok {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%q (%s of %s)", name, g[0], strings.Join(g[1:], " "))
}

// Witness returns the policy's witness of that name.
func (p *Policy) Witness(name string) (PolicyWitness, bool) {
	i := slices.IndexFunc(p.Witnesses, func(w PolicyWitness) bool { return w.Name == name })
	if i < 0 {
		return PolicyWitness{}, false
	}
	return p.Witnesses[i], true
}

// ErrNoQuorum marks a checkpoint refused for want of its policy's quorum.
var ErrNoQuorum = errors.New("the checkpoint lacks the witness quorum")

// ListsLog says whether a checkpoint signed with the verifier key vkey
// may be valid under the policy: a policy accepts any of the logs it
// lists, under whatever name, and a policy that lists none leaves the log
// to be known otherwise.
func (p *Policy) ListsLog(vkey string) bool {
	return len(p.Logs) == 0 || holdsKey(p.Logs, vkey)
}

// holdsKey says whether vkeys holds the key vkey, under any name.
func holdsKey(vkeys []string, vkey string) bool {
	return slices.ContainsFunc(vkeys, func(k string) bool { return keyMaterial(k) == keyMaterial(vkey) })
}

// WithLogs returns the policy with a log line for each of vkeys it does
// not list yet, first: the policy a log publishes names its own keys.
func (p *Policy) WithLogs(vkeys ...string) *Policy {
	var head []byte
	q := *p
	for _, k := range vkeys {
		if !holdsKey(q.Logs, k) {
			head = append(head, "log "+k+"\n"...)
			q.Logs = append(q.Logs, k)
		}
	}
	q.Text = append(head, p.Text...)
	return &q
}

// Policy is the log's policy as published: its verifier keys, and its
// witnesses and their quorum ("quorum none" without witnesses).
func (l *Log) Policy() *Policy {
	p := l.Witnesses
	if p == nil {
		p = &Policy{Text: []byte("quorum none\n"), quorum: fwitness.NewGroup(0), quorumName: "none"}
	}
	return p.WithLogs(l.Keys.VerifierKeys()...)
}

// Witnessed is what the witnesses of the log's policy say of its latest
// checkpoint.
type Witnessed struct {
	// Quorum is whether the checkpoint carries the policy's quorum of
	// cosignatures: without it, verifiers that apply the policy do not
	// accept the checkpoint.
	Quorum    bool          `json:"quorum"`
	Cosigners []Cosignature `json:"cosigners"`
	// Reason names the quorum missing.
	Reason string `json:"reason,omitempty"`
}

// Witnessed checks the latest checkpoint against the log's policy: nil
// for a log without witnesses.
func (l *Log) Witnessed(ctx context.Context) (*Witnessed, error) {
	if l.Witnesses == nil {
		return nil, nil
	}
	msg, _, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	signed, err := l.Witnesses.Check(msg)
	w := &Witnessed{Quorum: err == nil, Cosigners: signed}
	if w.Cosigners == nil {
		w.Cosigners = []Cosignature{}
	}
	if err != nil {
		w.Reason = err.Error()
	}
	return w, nil
}
