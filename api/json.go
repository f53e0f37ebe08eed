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
	"time"

	"github.com/feedbridge/feedbridge/internal/jsonkeys"
)

const contentTypeJSON = "application/json; charset=utf-8"

// writeJSON writes v with status. HTML escaping is off: clients read JSON, not HTML, and "<" should stay "<".
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a programming error (an unencodable type) lands here; the client still gets a JSON body.
		buf.Reset()
		buf.WriteString(`{"success":false,"error":"internal error","message":"The response could not be encoded."}` + "\n")
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
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

// decodeMembers is decodeObject that also returns the object's members as given, for a caller that must
// tell a member sent as null from one not sent.
func decodeMembers(body []byte, fields ...bodyField) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("invalid json", "The request body is empty; send a JSON object.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, jsonError(err)
	}
	if obj == nil {
		return nil, badRequest("invalid json", "The request body must be a JSON object, not null.")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badRequest("invalid json", "The request body has data after the JSON object.")
	}
	// encoding/json keeps the last of two equal names; a body that says two things is refused instead.
	var dup *jsonkeys.Duplicate
	if !flatUnique(body, len(obj)) && errors.As(jsonkeys.Check(body), &dup) {
		return nil, badRequest(dup.Error(), "The body gives the field %q more than once; send it once.", dup.Name)
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names) // deterministic: the first unknown name in order is reported
	known := make(map[string]any, len(fields))
	for _, f := range fields {
		known[f.name] = f.dst
	}
	for _, name := range names {
		if _, ok := known[name]; !ok {
			return nil, badRequest(fmt.Sprintf("unknown field %q", name), "The body field %q is not part of this request.", name)
		}
	}
	for _, name := range names {
		raw := obj[name]
		if isNull(raw) {
			continue
		}
		if err := json.Unmarshal(raw, known[name]); err != nil {
			return nil, wrongType(name, known[name])
		}
	}
	return obj, nil
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
