package jsondoc

import "unicode/utf8"

// String escaping: AppendString writes strings as JSON string literals,
// escaped exactly as the standard library's encoders escape them, for the
// hand-written encoders of the hot paths (API answers, log lines), whose
// output must stay byte for byte what encoding/json or log/slog would
// write.

// Style is whose escaping AppendString follows.
type Style int

// The styles.
const (
	// JSON is encoding/json's: <, > and & escaped, \b and \f in short form.
	JSON Style = iota
	// Slog is log/slog's JSON handler's: no HTML escaping, \b and \f as
	// \u0008 and \u000c.
	Slog
)

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted and escaped in style st: invalid UTF-8 becomes
// U+FFFD, and U+2028 and U+2029 are escaped in both styles.
func AppendString(b []byte, s string, st Style) []byte {
	html := st == JSON
	b = append(b, '"')
	start := 0
	for i := Plain(s, st); i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain(c, html) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"', c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b' && html:
				b = append(b, '\\', 'b')
			case c == '\f' && html:
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
