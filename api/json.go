package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/feedbridge/feedbridge/internal/jsonkeys"
)

const contentTypeJSON = "application/json; charset=utf-8"

// jsonBuffers holds the buffers responses are encoded into; the body is copied out by Write, so a
// buffer is free again as soon as it returns.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer is the largest buffer kept for reuse; a rare large listing does not pin its memory.
const maxPooledBuffer = 64 << 10

// writeJSON writes v with status. HTML escaping is off: clients read JSON, not HTML, and "<" should stay "<".
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			jsonBuffers.Put(buf)
		}
	}()
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a programming error (an unencodable type) lands here; the client still gets a JSON body.
		buf.Reset()
		buf.WriteString(`{"success":false,"error":"internal error","message":"The response could not be encoded."}` + "\n")
		status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", contentTypeJSON)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// timeString renders the contract's timestamp: UTC, three fraction digits, Z; "" for no time.
func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// bodyField is one accepted member of a request object; dst is a pointer to a string or a []string.
type bodyField struct {
	name string
	dst  any
}

// decodeObject reads a JSON object strictly: member names must match exactly (encoding/json alone would
// accept "Title" for "title"), each value must have the field's type (null counts as absent), and nothing
// may follow the object.
func decodeObject(body []byte, fields ...bodyField) error {
	_, err := decodeMembers(body, fields...)
	return err
}

// decodeMembers is decodeObject that also tells which fields were sent and which as null, for a caller that
// must tell a member sent as null from one not sent.
func decodeMembers(body []byte, fields ...bodyField) (members, error) {
	if m, ok := decodeSimple(body, fields); ok {
		return m, nil
	}
	return decodeGeneral(body, fields)
}

// decodeGeneral is decodeMembers for every body, by encoding/json; it finds and explains each error.
func decodeGeneral(body []byte, fields []bodyField) (members, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return members{}, badRequest("invalid json", "The request body is empty; send a JSON object.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return members{}, jsonError(err)
	}
	if obj == nil {
		return members{}, badRequest("invalid json", "The request body must be a JSON object, not null.")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return members{}, badRequest("invalid json", "The request body has data after the JSON object.")
	}
	// encoding/json keeps the last of two equal names; a body that says two things is refused instead.
	var dup *jsonkeys.Duplicate
	if !flatUnique(body, len(obj)) && errors.As(jsonkeys.Check(body), &dup) {
		return members{}, badRequest(dup.Error(), "The body gives the field %q more than once; send it once.", dup.Name)
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names) // deterministic: the first unknown name in order is reported
	known := make(map[string]int, len(fields))
	for i, f := range fields {
		known[f.name] = i
	}
	for _, name := range names {
		if _, ok := known[name]; !ok {
			return members{}, badRequest(fmt.Sprintf("unknown field %q", name), "The body field %q is not part of this request.", name)
		}
	}
	var m members
	for _, name := range names {
		i, raw := known[name], obj[name]
		m.sent |= 1 << i
		if isNull(raw) {
			m.null |= 1 << i
			continue
		}
		if err := json.Unmarshal(raw, fields[i].dst); err != nil {
			return members{}, wrongType(name, fields[i].dst)
		}
	}
	return m, nil
}

// flatUnique reports, for a body that decoded as an object of n distinct members, that it holds no nested
// object and exactly n members, so that no name can be given twice: the common flat body then skips
// jsonkeys.Check's slower walk. It counts the commas between the object's own members, outside strings
// and arrays; false sends the body to the full check.
func flatUnique(body []byte, n int) bool {
	depth, members, inString, escaped := 0, 0, false, false
	for _, c := range body {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
			if depth == 1 && members == 0 {
				members = 1
			}
		case c == '{':
			if depth > 0 {
				return false
			}
			depth++
		case c == '[':
			depth++
		case c == ']', c == '}':
			depth--
		case c == ',' && depth == 1:
			members++
		}
	}
	return members == n
}

// isNull reports whether a member's value is JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func wrongType(name string, dst any) error {
	want := "a string"
	switch dst.(type) {
	case *[]string:
		want = "an array of strings"
	case *int:
		want = "a whole number"
	}
	return badRequest(fmt.Sprintf("invalid type for field %q", name), "The field %q must be %s.", name, want)
}

// jsonError explains a body that is not a JSON object.
func jsonError(err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.As(err, &syn):
		return badRequest("invalid json", "The request body is not valid JSON (at byte %d): %s.", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		return badRequest("invalid json", "The request body must be a JSON object, not %s.", typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return badRequest("invalid json", "The request body ends before the JSON object does.")
	}
	return badRequest("invalid json", "The request body is not valid JSON.")
}

// readBody reads the (already size-limited) body.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		return nil, badRequest("unreadable body", "The request body could not be read.")
	}
	return b, nil
}
