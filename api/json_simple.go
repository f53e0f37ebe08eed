package api

import "unicode/utf8"

// members tells which fields of a decoded body were sent, and which of those were sent as null: bit i
// stands for fields[i] of the decode call.
type members struct{ sent, null uint64 }

// given reports whether field i was sent with a value other than null.
func (m members) given(i int) bool { return m.sent&^m.null&(1<<i) != 0 }

// decodeSimple reads the common body in one pass without encoding/json: an object whose members are each
// a known field, given once, with a string that needs no unescaping (for a string field) or null. It fills
// the fields only when the whole body is of that kind; false leaves them untouched, and the caller decodes
// the body the general way, which also finds and explains every error.
func decodeSimple(body []byte, fields []bodyField) (members, bool) {
	if len(fields) > 64 {
		return members{}, false
	}
	var (
		m    members
		vals [64]string
	)
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return members{}, false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return m, skipSpace(body, i+1) == len(body)
	}
	for {
		name, next, ok := plainString(body, i)
		if !ok {
			return members{}, false
		}
		f := -1
		for j := range fields {
			if fields[j].name == name {
				f = j
				break
			}
		}
		if f < 0 || m.sent&(1<<f) != 0 {
			return members{}, false
		}
		m.sent |= 1 << f
		i = skipSpace(body, next)
		if i == len(body) || body[i] != ':' {
			return members{}, false
		}
		i = skipSpace(body, i+1)
		switch {
		case i+4 <= len(body) && string(body[i:i+4]) == "null":
			m.null |= 1 << f
			i += 4
		default:
			if _, isString := fields[f].dst.(*string); !isString {
				return members{}, false
			}
			if vals[f], i, ok = plainString(body, i); !ok {
				return members{}, false
			}
		}
		i = skipSpace(body, i)
		if i == len(body) {
			return members{}, false
		}
		if body[i] == '}' {
			break
		}
		if body[i] != ',' {
			return members{}, false
		}
		i = skipSpace(body, i+1)
	}
	if skipSpace(body, i+1) != len(body) {
		return members{}, false
	}
	for f := range fields {
		if m.given(f) {
			*fields[f].dst.(*string) = vals[f]
		}
	}
	return m, true
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the JSON string starting at b[i] when it holds no escape, no control character and
// only valid UTF-8, so that its bytes are its value; it returns the value and the index after the closing
// quote.
func plainString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s := b[i+1 : j]
			if !utf8.Valid(s) {
				return "", i, false
			}
			return string(s), j + 1, true
		case c == '\\' || c < 0x20:
			return "", i, false
		}
	}
	return "", i, false
}
