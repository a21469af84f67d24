package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Skimming members: Each, EachValid and Get read the top-level members of
// a JSON object without decoding it: they skim over every value, so
// reading the id of a document with 64 KiB of notes costs a search for
// quotes, not a decode.

var errMalformed = errors.New("not a JSON object")

// Each calls f with the name and raw value of each top-level member of
// the JSON object doc, in order, until f returns false. It checks the
// object's structure only: a caller that needs doc to be valid JSON checks
// that with Valid.
func Each(doc []byte, f func(name, value []byte) bool) error { return each(doc, f, false) }

// EachValid is Each, and fails unless doc is valid JSON as Valid says:
// both in one pass, for a reader of a few members that must also check
// the whole document.
func EachValid(doc []byte, f func(name, value []byte) bool) error { return each(doc, f, true) }

func each(doc []byte, f func(name, value []byte) bool, valid bool) error {
	stopped := false
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return errMalformed
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return trailing(doc, i+1)
	}
	for {
		if i >= len(doc) || doc[i] != '"' {
			return errMalformed
		}
		var end int
		var err error
		if valid {
			if end = stringEndValid(doc, i); end < 0 {
				return errMalformed
			}
		} else if end, err = stringEnd(doc, i); err != nil {
			return err
		}
		name, err := unquote(doc[i:end])
		if err != nil {
			return err
		}
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return errMalformed
		}
		start := skipSpace(doc, i+1)
		if valid {
			if start < len(doc) && doc[start] == '"' {
				i = stringEndValid(doc, start) // most values: no stack of open objects to set up
			} else {
				i = validEnd(doc, start, 1)
			}
			if i < 0 {
				return errMalformed
			}
		} else if i, err = valueEnd(doc, start); err != nil {
			return err
		}
		if !stopped && !f(name, doc[start:i]) {
			if !valid {
				return nil
			}
			stopped = true // the rest is checked all the same
		}
		i = skipSpace(doc, i)
		switch {
		case i < len(doc) && doc[i] == ',':
			i = skipSpace(doc, i+1)
		case i < len(doc) && doc[i] == '}':
			return trailing(doc, i+1)
		default:
			return errMalformed
		}
	}
}

// Get returns the raw value of the last top-level member called name, nil
// when there is none.
func Get(doc []byte, name string) ([]byte, error) {
	var v []byte
	err := Each(doc, func(n, raw []byte) bool {
		if string(n) == name {
			v = raw
		}
		return true
	})
	return v, err
}

func trailing(doc []byte, i int) error {
	if skipSpace(doc, i) != len(doc) {
		return errMalformed
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at b[i]: the
// first quote after it that an odd run of backslashes does not escape.
func stringEnd(b []byte, i int) (int, error) {
	i++
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return 0, errMalformed
		}
		i += k
		escapes := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// valueEnd returns the index after the value that starts at b[i].
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformed
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, err := stringEnd(b, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errMalformed
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	if i == start {
		return 0, errMalformed
	}
	return i, nil
}

// unquote decodes a member name; most have no escapes and are returned in
// place.
func unquote(q []byte) ([]byte, error) {
	if bytes.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1], nil
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return nil, errMalformed
	}
	return []byte(s), nil
}
