package webhook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/jsonkeys"
)

// maxRecords bounds the records one delivery may carry; senders batch far fewer.
const maxRecords = 1000

// inputError is a payload the mapping cannot turn into records: the sender's mistake, answered 400.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func badInput(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// record is one record read from a payload, before its tag labels are matched to the workspace's tags.
type record struct {
	sub  core.Submission
	tags []string
}

// extract reads the records of a JSON payload. It is pure: the same payload always gives the same records.
func (e *entrySpec) extract(body []byte) ([]record, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, badInput("body is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badInput("body holds more than one JSON value")
	}
	// A mapping reads fields by name; with a name given twice, which one it read would be a guess.
	if err := jsonkeys.Check(body); err != nil {
		return nil, badInput("%v", err)
	}
	elems, err := e.elements(root)
	if err != nil {
		return nil, err
	}
	out := make([]record, 0, len(elems))
	for i, el := range elems {
		r, err := e.record(root, el)
		if err != nil {
			if len(elems) > 1 {
				return nil, badInput("record %d: %v", i+1, err)
			}
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// elements are the values each record is read from.
func (e *entrySpec) elements(root any) ([]any, error) {
	var elems []any
	switch {
	case e.paths.each != nil:
		vals := e.paths.each.eval(root)
		if len(vals) == 1 {
			if arr, ok := vals[0].([]any); ok {
				vals = arr
			}
		}
		if len(vals) == 0 {
			return nil, badInput("missing field %q: nothing at %s", "each", e.paths.each.raw)
		}
		elems = vals
	default:
		if arr, ok := root.([]any); ok {
			if len(arr) == 0 {
				return nil, badInput("the payload is an empty list")
			}
			elems = arr
		} else {
			elems = []any{root}
		}
	}
	if len(elems) > maxRecords {
		return nil, badInput("%d records in one delivery; at most %d", len(elems), maxRecords)
	}
	return elems, nil
}

func (e *entrySpec) record(root, el any) (record, error) {
	p := e.paths
	get := func(pa *path) []string {
		if pa == nil {
			return nil
		}
		from := el
		if pa.root {
			from = root
		}
		var out []string
		for _, v := range pa.eval(from) {
			if s, ok := text(v); ok && strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
		}
		return out
	}
	first := func(pa *path) string {
		if v := get(pa); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	sub := core.Submission{
		Type:               e.recordType,
		Title:              strings.TrimSpace(first(p.title)),
		Description:        strings.Join(get(p.description), "\n\n"),
		PlainText:          !e.html,
		CustomerEmail:      strings.TrimSpace(first(p.email)),
		CustomerName:       core.Truncate(strings.TrimSpace(first(p.name)), core.MaxCustomerName, ""),
		Source:             first(p.source),
		DefaultSource:      e.Source,
		CountsAgainstLimit: e.recordType == core.RecordIdea,
	}
	sub.Description = core.Truncate(sub.Description, core.MaxDescription, "…")
	if sub.Title == "" {
		sub.Title = firstLine(sub.Description, e.html)
	}
	if sub.Title == "" {
		return record{}, badInput("missing field %q: nothing at %s", "title", pathText(p.title, p.description))
	}
	sub.Title = core.Truncate(sub.Title, core.MaxTitle, "…")
	if p.createdAt != nil {
		if s := first(p.createdAt); s != "" {
			t, err := parseTime(s)
			if err != nil {
				return record{}, badInput("created_at: %v", err)
			}
			sub.CreatedAt = t
		}
	}
	if p.externalID != nil {
		id := strings.TrimSpace(first(p.externalID))
		if id == "" {
			return record{}, badInput("missing field %q: nothing at %s", "external_id", p.externalID.raw)
		}
		sub.DedupKey = "webhook:" + e.Name + ":id:" + id
	} else {
		// Without an id a sender's retry of the same delivery must still create nothing: the element's
		// content names it.
		canon, _ := json.Marshal(el)
		sum := sha256.Sum256(canon)
		sub.DedupKey = "webhook:" + e.Name + ":sha256:" + hex.EncodeToString(sum[:])
	}
	return record{sub: sub, tags: e.tagLabels(root, el)}, nil
}

// tagLabels reads the tags path: list members, or text split at commas and semicolons.
func (e *entrySpec) tagLabels(root, el any) []string {
	pa := e.paths.tags
	if pa == nil {
		return nil
	}
	from := el
	if pa.root {
		from = root
	}
	var out []string
	var add func(v any)
	add = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, m := range x {
				add(m)
			}
		default:
			s, ok := text(x)
			if !ok {
				return
			}
			for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
				if t := strings.TrimSpace(part); t != "" {
					out = append(out, t)
				}
			}
		}
	}
	for _, v := range pa.eval(from) {
		add(v)
	}
	return out
}

func firstLine(desc string, html bool) string {
	if html {
		desc = core.HTMLToText(desc)
	}
	for line := range strings.SplitSeq(desc, "\n") {
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
	}
	return ""
}

func pathText(ps ...*path) string {
	var out []string
	for _, p := range ps {
		if p != nil {
			out = append(out, p.raw)
		}
	}
	return strings.Join(out, " or ")
}

// parseTime reads RFC 3339, a date (midnight UTC), or Unix seconds (milliseconds when that large).
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		if n > 1e12 {
			return time.UnixMilli(n).UTC(), nil
		}
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not RFC 3339, YYYY-MM-DD or Unix seconds", core.Truncate(s, 40, "…"))
}
