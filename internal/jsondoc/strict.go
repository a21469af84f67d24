package jsondoc

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Strict checking: Check refuses what encoding/json lets through
// silently: a member name given twice (encoding/json keeps the last), bytes
// that are not UTF-8 and \u escapes that are lone surrogates (both turned
// into U+FFFD). Run it on a request body before decoding it.

// MaxDepth bounds how deeply objects and arrays may nest.
const MaxDepth = 64

// StrictError says what is wrong and at which byte offset.
type StrictError struct {
	Offset int
	Reason string
}

func (e *StrictError) Error() string { return fmt.Sprintf("%s (at byte %d)", e.Reason, e.Offset) }

// Check reports the first reason data is not one strict JSON value,
// optionally surrounded by white space. When that value is an object, it
// also returns its member names, decoded, in order, so that a caller can
// match them case-sensitively.
func Check(data []byte) (names []string, err error) {
	s := &scanner{data: data}
	return s.top(nil, true)
}

// scanner checks one JSON text in one pass. Given a type to decode into,
// it also matches every member name against that type's fields (see
// Unmarshal) and keeps the first that is not one.
type scanner struct {
	data    []byte
	pos     int
	depth   int
	unknown *UnknownMemberError
}

// top scans the whole text as a value to decode into t (nil: any); with
// keep it returns the member names of an object.
func (s *scanner) top(t *shape, keep bool) (names []string, err error) {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '{' {
		names, err = s.object(keep, t)
	} else {
		err = s.value(t)
	}
	if err != nil {
		return nil, err
	}
	s.space()
	if s.pos < len(s.data) {
		return nil, s.fail("data after the JSON value")
	}
	return names, nil
}

func (s *scanner) fail(reason string) error { return &StrictError{Offset: s.pos, Reason: reason} }

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans one value to decode into t (nil: any).
func (s *scanner) value(t *shape) error {
	s.space()
	if s.pos >= len(s.data) {
		return s.fail("unexpected end of JSON")
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		_, err := s.object(false, t)
		return err
	case c == '[':
		return s.array(t)
	case c == '"':
		_, err := s.text(false)
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	}
	return s.fail("unexpected character")
}

func (s *scanner) enter() error {
	if s.depth++; s.depth > MaxDepth {
		return s.fail(fmt.Sprintf("JSON nested more than %d levels deep", MaxDepth))
	}
	return nil
}

// object scans an object; with keep it returns the member names.
func (s *scanner) object(keep bool, t *shape) ([]string, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	s.pos++ // {
	var names []string
	var seen members
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return names, nil
	}
	for {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, s.fail("expected a member name")
		}
		at := s.pos
		name, err := s.text(true)
		if err != nil {
			return nil, err
		}
		if !seen.add(name) {
			return nil, &StrictError{Offset: at, Reason: fmt.Sprintf("member %q appears twice", name)}
		}
		if keep {
			names = append(names, string(name))
		}
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.fail("expected ':' after a member name")
		}
		s.pos++
		if err := s.value(t.member(name, s)); err != nil {
			return nil, err
		}
		s.space()
		if s.pos >= len(s.data) {
			return nil, s.fail("unexpected end of JSON")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return names, nil
		default:
			return nil, s.fail("expected ',' or '}'")
		}
	}
}

// members are the names an object has given so far, to find one given
// twice: compared in turn while there are few, as a document's objects
// have, and looked up in a map past that.
type members struct {
	few  [16][]byte
	n    int
	many map[string]bool
}

// add adds name, or says it was given already.
func (m *members) add(name []byte) bool {
	if m.many != nil {
		if m.many[string(name)] {
			return false
		}
		m.many[string(name)] = true
		return true
	}
	for _, had := range m.few[:m.n] {
		if string(had) == string(name) {
			return false
		}
	}
	if m.n < len(m.few) {
		m.few[m.n] = name
		m.n++
		return true
	}
	m.many = make(map[string]bool, 2*len(m.few))
	for _, had := range m.few {
		m.many[string(had)] = true
	}
	m.many[string(name)] = true
	return true
}

func (s *scanner) array(t *shape) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // [
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		if err := s.value(t.item()); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.data) {
			return s.fail("unexpected end of JSON")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail("expected ',' or ']'")
		}
	}
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.fail("unexpected character")
	}
	s.pos += len(word)
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

func (s *scanner) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return s.fail("malformed number")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail("malformed number")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail("malformed number")
		}
	}
	return nil
}

// text scans a string; with decode it returns its content decoded: the
// bytes of data themselves when it has no escape.
func (s *scanner) text(decode bool) ([]byte, error) {
	s.pos++ // "
	start := s.pos
	var out []byte // the content decoded, once an escape is met
	escaped := false
	for {
		if s.pos >= len(s.data) {
			return nil, s.fail("unterminated string")
		}
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			if !escaped {
				return s.data[start : s.pos-1], nil
			}
			return out, nil
		case c < 0x20:
			return nil, s.fail("control character in a string (escape it)")
		case c == '\\':
			if decode && !escaped {
				out = append(make([]byte, 0, s.pos-start+8), s.data[start:s.pos]...)
			}
			escaped = true
			r, err := s.escape()
			if err != nil {
				return nil, err
			}
			if decode {
				out = utf8.AppendRune(out, r)
			}
		case c < utf8.RuneSelf:
			// A run of bytes that need no escape, eight at a time.
			n := max(Plain(s.data[s.pos:], Slog), 1)
			if decode && escaped {
				out = append(out, s.data[s.pos:s.pos+n]...)
			}
			s.pos += n
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, s.fail("invalid UTF-8")
			}
			if decode && escaped {
				out = append(out, s.data[s.pos:s.pos+size]...)
			}
			s.pos += size
		}
	}
}

// escape scans one escape sequence; a \u escape of a surrogate must be
// the high half of a pair whose low half follows at once.
func (s *scanner) escape() (rune, error) {
	if s.pos+1 >= len(s.data) {
		return 0, s.fail("unterminated string")
	}
	switch c := s.data[s.pos+1]; c {
	case '"', '\\', '/':
		s.pos += 2
		return rune(c), nil
	case 'b':
		s.pos += 2
		return '\b', nil
	case 'f':
		s.pos += 2
		return '\f', nil
	case 'n':
		s.pos += 2
		return '\n', nil
	case 'r':
		s.pos += 2
		return '\r', nil
	case 't':
		s.pos += 2
		return '\t', nil
	case 'u':
	default:
		return 0, s.fail("invalid escape")
	}
	at := s.pos
	r, ok := s.hex4()
	if !ok {
		return 0, s.fail("invalid \\u escape")
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if r < 0xdc00 {
		if low, ok := s.hex4(); ok && 0xdc00 <= low && low < 0xe000 {
			return utf16.DecodeRune(r, low), nil
		}
	}
	return 0, &StrictError{Offset: at, Reason: "lone surrogate in a \\u escape"}
}

// hex4 reads \uXXXX at the current position.
func (s *scanner) hex4() (rune, bool) {
	if len(s.data)-s.pos < 6 || s.data[s.pos] != '\\' || s.data[s.pos+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s.data[s.pos+2 : s.pos+6] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	s.pos += 6
	return r, true
}
