package email

import (
	"bytes"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// readTopEntity reads a whole message held in memory. Its header is taken from raw in place: textproto's
// ReadHeader copies every line into a buffer of its own (256 bytes at least), a fifth of what the parser
// allocated. Only a header that textproto.ReadHeader would read without complaint takes the fast path;
// anything unusual (a leading space, a line without a colon, a bad field name, no blank line before the end,
// a header near message.Read's size limit) is read by readEntity, so errors and edge cases stay its.
func readTopEntity(raw []byte) (e *entity, done func(), err error) {
	h, end, ok := headerInPlace(raw)
	if !ok {
		return readEntity(bytes.NewReader(raw))
	}
	br := pooledReader(bytes.NewReader(raw[end:]))
	return newEntity(message.Header{Header: h}, br), func() { releaseReader(br) }, nil
}

// headerInPlace parses the header block at the start of raw into a header whose fields refer to raw, and
// returns where the body begins. Header.AddRaw derives each field's name and value as ReadHeader does; the
// fields are added last first, since a Header keeps them in reverse order.
func headerInPlace(raw []byte) (h textproto.Header, end int, ok bool) {
	if len(raw) == 0 || raw[0] == ' ' || raw[0] == '\t' {
		return h, 0, false
	}
	var buf [48][2]int // start and end of each field, continuation lines included
	fields := buf[:0]
	pos := 0
	for {
		if pos > maxHeaderBytes-64<<10 {
			return h, 0, false // near the limit: let readEntity apply it
		}
		nl := bytes.IndexByte(raw[pos:], '\n')
		if nl < 0 {
			return h, 0, false // no blank line before the end
		}
		line := raw[pos : pos+nl]
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			end = pos + nl + 1
			break
		}
		start := pos
		pos += nl + 1
		for pos < len(raw) && (raw[pos] == ' ' || raw[pos] == '\t') { // continuation lines
			nl := bytes.IndexByte(raw[pos:], '\n')
			if nl < 0 {
				return h, 0, false
			}
			pos += nl + 1
		}
		kv := raw[start:pos]
		colon := bytes.IndexByte(kv, ':')
		if colon < 0 {
			return h, 0, false
		}
		key := trimSpaceTab(kv[:colon])
		if len(key) == 0 {
			continue // ReadHeader skips a field without a name
		}
		for _, c := range key {
			if c < 33 || c > 126 {
				return h, 0, false // ReadHeader refuses it
			}
		}
		fields = append(fields, [2]int{start, pos})
	}
	for i := len(fields) - 1; i >= 0; i-- {
		h.AddRaw(raw[fields[i][0]:fields[i][1]])
	}
	return h, end, true
}

func trimSpaceTab(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
