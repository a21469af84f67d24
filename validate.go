package todo

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits Cosmos DB imposes, enforced here so that bad input is refused with a
// clear message before any write.
const (
	MaxIDBytes       = 255             // an item id
	MaxDocumentBytes = 2 * 1024 * 1024 // one item, as JSON
	MaxCategoryBytes = 200             // leaves room for ":" and a UUID in a 255-byte id
	MaxUserIDBytes   = 128
	MaxTitleBytes    = 1024
	MaxNotesBytes    = 64 * 1024
	MaxTags          = 32
	MaxTagBytes      = 64
)

// ValidateSegment checks a value that is embedded in an id or used as a
// partition key value: what names it (say "category") goes into the message.
// Cosmos forbids '/', '\', '?' and '#' in ids, and ids with control
// characters or surrounding spaces break routing; we refuse all of them.
func ValidateSegment(what, s string, maxBytes int) error {
	switch {
	case s == "":
		return Errorf(Invalid, "%s is required", what)
	case len(s) > maxBytes:
		return Errorf(Invalid, "%s is longer than %d bytes", what, maxBytes)
	case plainASCII(s):
		// Valid UTF-8 with nothing forbidden: of the spaces TrimSpace
		// trims, only ' ' is printable ASCII.
		if s[0] == ' ' || s[len(s)-1] == ' ' {
			return Errorf(Invalid, "%s has leading or trailing spaces", what)
		}
		return nil
	case !utf8.ValidString(s):
		return Errorf(Invalid, "%s is not valid UTF-8", what)
	case strings.TrimSpace(s) != s:
		return Errorf(Invalid, "%s has leading or trailing spaces", what)
	}
	for _, r := range s {
		switch {
		case r == '/' || r == '\\' || r == '?' || r == '#':
			return Errorf(Invalid, "%s may not contain %q", what, r)
		case unicode.IsControl(r):
			return Errorf(Invalid, "%s may not contain control characters", what)
		}
	}
	return nil
}

// segmentPlain marks the bytes that ValidateSegment accepts without
// decoding runes: printable ASCII but / \ ? #.
var segmentPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '/' && c != '\\' && c != '?' && c != '#'
	}
	return t
}()

// plainASCII reports whether every byte of s is segmentPlain: the common
// case, which ValidateSegment checks in one pass.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if !segmentPlain[s[i]] {
			return false
		}
	}
	return true
}

// ValidateID checks a whole item id against the Cosmos id rules.
func ValidateID(id string) error { return ValidateSegment("id", id, MaxIDBytes) }

// ValidateCategory checks a category, which is embedded in ids, used as a
// partition key value and sent in URL paths and query strings. It must be
// safe in all of them as it is, so it is restricted to Unicode letters,
// combining marks and decimal digits, the ASCII punctuation "-", "_", "." and
// "~" (the unreserved characters of URLs), and single spaces between words.
// Everything else is refused: "%" (an id holding "%2F" would only work
// double-encoded), the separators "/", "\\", "?", "#", ":", ",", "&", "=" and
// "+", control, format (zero-width, bidi override) and other invisible
// characters.
func ValidateCategory(c string) error {
	if err := ValidateSegment("category", c, MaxCategoryBytes); err != nil {
		return err
	}
	prev := ' '
	for _, r := range c {
		switch {
		case r == ' ' && prev == ' ':
			return Errorf(Invalid, "category may not contain two spaces in a row")
		case r == ' ', r == '-', r == '_', r == '.', r == '~':
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			// ASCII letters and digits, without the Unicode tables.
		case unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point):
			return Errorf(Invalid, "category may not contain invisible characters (%U)", r)
		case unicode.In(r, unicode.L, unicode.Nd, unicode.Mn, unicode.Mc):
		default:
			return Errorf(Invalid, "category may not contain %q (%U): use letters, digits, spaces between words and - _ . ~", r, r)
		}
		prev = r
	}
	return nil
}

// ValidateUserID checks an authenticated user id, which becomes part of
// partition keys and of audit entity keys.
func ValidateUserID(user string) error { return ValidateSegment("user id", user, MaxUserIDBytes) }

// Validate checks the user-editable fields of a todo.
func (f *Fields) Validate() error {
	if err := ValidateCategory(f.Category); err != nil {
		return err
	}
	if err := checkText("title", f.Title, MaxTitleBytes, true); err != nil {
		return err
	}
	if err := checkText("notes", f.Notes, MaxNotesBytes, false); err != nil {
		return err
	}
	if len(f.Tags) > MaxTags {
		return Errorf(Invalid, "at most %d tags are allowed", MaxTags)
	}
	for _, tag := range f.Tags {
		if err := ValidateTag(tag); err != nil {
			return err
		}
	}
	if f.DueDate != nil {
		return ValidateDueDate(*f.DueDate)
	}
	return nil
}

// ParseTime reads an RFC 3339 time strictly. Go's parser takes the offset
// "+24:00", one-digit hours and a comma before fractions of a second, which
// RFC 3339 does not allow: they are refused here.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, err
	}
	switch {
	case s[len("2006-01-02T15")] != ':':
		return t, errors.New("the hour must have two digits")
	case s[len("2006-01-02T15:04:05")] == ',':
		return t, errors.New("fractions of a second follow a period")
	}
	if zone := s[len(s)-1]; zone != 'Z' {
		// time.Parse has checked the shape "±hh:mm".
		off := s[len(s)-len("07:00"):]
		if off[:2] > "23" || off[3:] > "59" {
			return t, fmt.Errorf("the offset %s is out of range", s[len(s)-len("+07:00"):])
		}
	}
	return t, nil
}

// ValidateDueDate checks that a due date's year, as given and in UTC, is
// from 1 to 9999: the range RFC 3339 and Cosmos DB can hold.
func ValidateDueDate(d time.Time) error {
	for _, y := range []int{d.Year(), d.UTC().Year()} {
		if y < 1 || y > 9999 {
			return Errorf(Invalid, "dueDate must fall in the years 1 to 9999 (in UTC too)")
		}
	}
	return nil
}

func checkText(what, s string, maxBytes int, required bool) error {
	switch {
	case required && !visible(s):
		return Errorf(Invalid, "%s is required: it has no visible characters", what)
	case len(s) > maxBytes:
		return Errorf(Invalid, "%s is longer than %d bytes", what, maxBytes)
	case !utf8.ValidString(s):
		return Errorf(Invalid, "%s is not valid UTF-8", what)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			return Errorf(Invalid, "%s may not contain control characters", what)
		}
	}
	return nil
}

// visible reports whether s has a character that shows: one that is not a
// space of any width (U+3000 included), a format character (zero-width
// space, joiners, bidi marks) or another default-ignorable character, so
// that a title of nothing but those counts as empty.
func visible(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.In(r, unicode.Zs, unicode.Cf, unicode.Cc,
			unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
			return true
		}
	}
	return false
}

// ValidateSearch checks a text searched for in titles: what a title may
// hold, not blank.
func ValidateSearch(q string) error { return checkText("q", q, MaxTitleBytes, true) }

// ValidateTag checks a tag: text without line breaks, control characters
// or format characters (zero-width characters, bidi overrides and the
// like), which would make two tags that look the same differ.
func ValidateTag(tag string) error {
	if err := checkText("tag", tag, MaxTagBytes, true); err != nil {
		return err
	}
	for _, r := range tag {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return Errorf(Invalid, "tag may not contain control or format characters (%U)", r)
		}
	}
	return nil
}

// ValidateText checks required free text other than a todo's (the reason
// of a legal hold, say): not blank, at most maxBytes, valid UTF-8, and no
// control characters but line breaks and tabs.
func ValidateText(what, s string, maxBytes int) error { return checkText(what, s, maxBytes, true) }
