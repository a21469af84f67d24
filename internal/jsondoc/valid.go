package jsondoc

// stdlibMaxDepth is how deeply encoding/json lets arrays and objects nest.
const stdlibMaxDepth = 10000

// stringPlain marks the bytes a JSON string holds as they are: not a quote, a
// backslash or a control character.
var stringPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Valid reports whether b is one JSON value with only whitespace around
// it, exactly as json.Valid does (invalid UTF-8 in strings included), in
// a single pass several times cheaper: a store checks every document it
// writes, and most of a document's bytes are strings.
func Valid(b []byte) bool {
	i := validEnd(b, skipSpace(b, 0), 0)
	return i >= 0 && skipSpace(b, i) == len(b)
}

// validEnd returns the index after the valid JSON value that starts at
// b[i], or -1; the value is inside depth arrays and objects.
func validEnd(b []byte, i, depth int) int {
	var buf [32]byte
	open := buf[:0] // the '{' and '[' the value at i is inside, innermost last
	for {
		// A value starts at i.
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth+len(open) >= stdlibMaxDepth {
				return -1
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			open = append(open, c)
			if c == '{' {
				if i = member(b, i); i < 0 {
					return -1
				}
			}
			continue
		case '"':
			i = stringEndValid(b, i)
		case 't':
			i = literal(b, i, "true")
		case 'f':
			i = literal(b, i, "false")
		case 'n':
			i = literal(b, i, "null")
		default:
			i = numberEnd(b, i)
		}
		// A value ended at i: close what it ends, or go on to the next.
		for {
			if i < 0 || len(open) == 0 {
				return i
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				i = member(b, i)
			}
			break
		}
		if i < 0 {
			return -1
		}
	}
}

// member checks a member's name and colon at b[i] and returns where its
// value starts, or -1.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = stringEndValid(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// stringEndValid returns the index after the valid string that starts at
// b[i], or -1.
func stringEndValid(b []byte, i int) int {
	i++
	for {
		// Eight bytes at a time while they are ASCII, then one at a time
		// past what is not.
		for i += Plain(b[i:], Slog); i < len(b) && stringPlain[b[i]]; {
			i++
			i += Plain(b[i:], Slog)
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal returns the index after word at b[i], or -1.
func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// numberEnd returns the index after the number that starts at b[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1.
func numberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digitsEnd(b, i+1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		return digitsEnd(b, i)
	}
	return i
}

// digitsEnd returns the index after one or more digits at b[i], or -1.
func digitsEnd(b []byte, i int) int {
	start := i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
