package webhook

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A path names values inside a JSON payload: dot-separated keys, each optionally followed by brackets —
// [N] an array index, [*] every element, [key=value] every element whose key (itself a dotted path) holds
// that text. A leading "$." reads from the payload's root rather than from the current record element.
// Examples: ticket.subject, data.item.tags.tags[*].name, form_response.answers[type=email].email.
type path struct {
	raw   string
	root  bool
	steps []step
}

type step struct {
	key    string // "" for a bracket that follows the previous key directly
	index  int    // >= 0: [N]
	all    bool   // [*]
	filter *path  // [key=value]: the key's path relative to the element
	want   string // [key=value]: the value
}

// maxPathSteps bounds a path's length; a payload deeper than this is not worth mapping.
const maxPathSteps = 32

// parsePath reads a path written in the config.
func parsePath(s string) (*path, error) {
	p := &path{raw: s}
	rest := strings.TrimSpace(s)
	if rest == "$" {
		return &path{raw: s, root: true}, nil
	}
	if r, ok := strings.CutPrefix(rest, "$."); ok {
		p.root, rest = true, r
	}
	if rest == "" {
		return nil, fmt.Errorf("empty path")
	}
	for rest != "" {
		if len(p.steps) >= maxPathSteps {
			return nil, fmt.Errorf("path %q has more than %d steps", s, maxPathSteps)
		}
		var key string
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			key, rest = rest, ""
		} else {
			key, rest = rest[:end], rest[end:]
		}
		if key == "" && !strings.HasPrefix(rest, "[") {
			return nil, fmt.Errorf("path %q has an empty key", s)
		}
		if strings.ContainsAny(key, "]=") {
			return nil, fmt.Errorf("path %q: unexpected %q", s, key)
		}
		if key != "" {
			p.steps = append(p.steps, step{key: key, index: -1})
		}
		for strings.HasPrefix(rest, "[") {
			close := matchingBracket(rest)
			if close < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", s)
			}
			inner := rest[1:close]
			rest = rest[close+1:]
			st, err := parseBracket(inner)
			if err != nil {
				return nil, fmt.Errorf("path %q: %w", s, err)
			}
			p.steps = append(p.steps, st)
		}
		if r, ok := strings.CutPrefix(rest, "."); ok {
			if r == "" {
				return nil, fmt.Errorf("path %q ends with a dot", s)
			}
			rest = r
		} else if rest != "" {
			return nil, fmt.Errorf("path %q: unexpected %q", s, rest)
		}
	}
	return p, nil
}

// matchingBracket finds the "]" that closes the "[" at s[0], allowing nested brackets in a filter's path.
func matchingBracket(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func parseBracket(inner string) (step, error) {
	switch {
	case inner == "*":
		return step{index: -1, all: true}, nil
	case strings.Contains(inner, "="):
		k, v, _ := strings.Cut(inner, "=")
		fp, err := parsePath(strings.TrimSpace(k))
		if err != nil || fp.root {
			return step{}, fmt.Errorf("bad filter [%s]", inner)
		}
		return step{index: -1, filter: fp, want: strings.Trim(strings.TrimSpace(v), `"'`)}, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(inner))
	if err != nil || n < 0 {
		return step{}, fmt.Errorf("bad index [%s]", inner)
	}
	return step{index: n}, nil
}

// eval returns every value the path reaches from v, in document order; none when it reaches nothing.
func (p *path) eval(v any) []any {
	cur := []any{v}
	for _, st := range p.steps {
		var next []any
		for _, c := range cur {
			next = append(next, st.apply(c)...)
		}
		if len(next) == 0 {
			return nil
		}
		cur = next
	}
	return cur
}

func (st step) apply(v any) []any {
	if st.key != "" {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		x, ok := m[st.key]
		if !ok {
			return nil
		}
		return []any{x}
	}
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	switch {
	case st.all:
		return arr
	case st.filter != nil:
		var out []any
		for _, e := range arr {
			for _, got := range st.filter.eval(e) {
				if s, ok := text(got); ok && s == st.want {
					out = append(out, e)
					break
				}
			}
		}
		return out
	case st.index < len(arr):
		return []any{arr[st.index]}
	}
	return nil
}

// text turns a scalar JSON value into text; objects and arrays are not text.
func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}
