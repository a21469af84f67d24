package jsondoc

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// String decodes the JSON value raw as json.Unmarshal into a string does
// (null leaves it empty), without its reflection and its scan of raw
// before the decode for the common form: a string with nothing to
// unescape. A reader of a member's value from Each calls it for each of
// several fields of every document.
func String(raw []byte) (string, error) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		s := raw[1 : n-1]
		if verbatim(s) {
			return string(s), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// StringIs reports whether the JSON value raw decodes to s as String
// does, without an error, and without a copy of raw when it is a string
// with nothing to unescape: a store compares the partition key values of
// every document it writes with the key it is written under.
func StringIs(raw []byte, s string) bool {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && verbatim(raw[1:n-1]) {
		return string(raw[1:n-1]) == s
	}
	v, err := String(raw)
	return err == nil && v == s
}

// verbatim reports whether s is the content of a JSON string as it is:
// no quote, backslash or control character, and valid UTF-8 (which
// encoding/json would otherwise replace).
func verbatim(s []byte) bool {
	n := Plain(s, Slog) // the ASCII prefix, eight bytes at a time
	for _, c := range s[n:] {
		if !stringPlain[c] {
			return false
		}
	}
	return n == len(s) || utf8.Valid(s[n:])
}

// Int decodes the JSON value raw as json.Unmarshal into an int64 does
// (null leaves it 0), without reflection for the common form: an integer
// of at most 18 digits.
func Int(raw []byte) (int64, error) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if n := len(digits); n > 0 && n <= 18 && (digits[0] != '0' || n == 1) && allDigits(digits) {
		return strconv.ParseInt(string(raw), 10, 64)
	}
	var v int64
	err := json.Unmarshal(raw, &v)
	return v, err
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
