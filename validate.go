package todo

import (
	"strings"
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

// ValidateID checks a whole item id against the Cosmos id rules.
func ValidateID(id string) error { return ValidateSegment("id", id, MaxIDBytes) }

// ValidateCategory checks a category, which is embedded in ids and used as
// a partition key value. Commas are refused too: the Functions host joins a
// repeated query parameter with commas, so a comma in a category filter
// would be ambiguous.
func ValidateCategory(c string) error {
	if err := ValidateSegment("category", c, MaxCategoryBytes); err != nil {
		return err
	}
	if strings.ContainsRune(c, ',') {
		return Errorf(Invalid, "category may not contain ','")
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
		if err := checkText("tag", tag, MaxTagBytes, true); err != nil {
			return err
		}
	}
	return nil
}

func checkText(what, s string, maxBytes int, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return Errorf(Invalid, "%s is required", what)
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
