package httpapi

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/todoaudit/todo"
)

// appendTodo appends the API view of t as JSON: every property of
// todo.Todo but the internal ones, in declaration order, the bytes
// encoding/json would give, without reflection (a point read spends a good
// part of its time encoding). Tests hold its properties to todo.Todo and
// openapi.json, and its bytes to encoding/json.
func appendTodo(b []byte, t *todo.Todo) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, t.ID)
	b = append(b, `,"userId":`...)
	b = appendString(b, t.UserID)
	b = append(b, `,"category":`...)
	b = appendString(b, t.Category)
	b = append(b, `,"title":`...)
	b = appendString(b, t.Title)
	if t.Notes != "" {
		b = append(b, `,"notes":`...)
		b = appendString(b, t.Notes)
	}
	if t.DueDate != nil {
		b = append(b, `,"dueDate":`...)
		b = appendTime(b, *t.DueDate)
	}
	if len(t.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, tag := range t.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, tag)
		}
		b = append(b, ']')
	}
	b = append(b, `,"isCompleted":`...)
	b = strconv.AppendBool(b, t.IsCompleted)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, t.Version, 10)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, t.CreatedAt)
	b = append(b, `,"updatedAt":`...)
	b = appendTime(b, t.UpdatedAt)
	if t.MovedFrom != "" {
		b = append(b, `,"movedFrom":`...)
		b = appendString(b, t.MovedFrom)
	}
	return append(b, '}')
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does
// (including <, >, & and U+2028/U+2029; invalid UTF-8 becomes U+FFFD).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
