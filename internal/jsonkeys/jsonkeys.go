// Package jsonkeys finds a member name that appears twice in one JSON object. encoding/json keeps the last
// of them silently, so a body that says two things at once would be read as whichever came last; the API
// and the webhook refuse such a body instead.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Duplicate is a member name given twice in the same object; Path locates the object ("" for the top
// level, otherwise like "items[2].customer").
type Duplicate struct {
	Path, Name string
}

func (d *Duplicate) Error() string {
	if d.Path == "" {
		return fmt.Sprintf("duplicate field %q", d.Name)
	}
	return fmt.Sprintf("duplicate field %q in %s", d.Name, d.Path)
}

// frame is one open object or array while walking the tokens.
type frame struct {
	path   string
	object bool
	keys   map[string]struct{}
	index  int  // arrays: the next element's index
	expect bool // objects: the next token is a member name
	member string
}

// Check returns a *Duplicate for the first repeated member name in data, in document order, or nil. It
// does not judge the JSON otherwise: invalid JSON is left for the real decoder to report, so Check returns
// nil at the first syntax error.
func Check(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	// childPath is where the value that the next token starts lives.
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			return join(top.path, top.member)
		}
		return fmt.Sprintf("%s[%d]", top.path, top.index)
	}
	// done marks the value that just ended as one member or element of the enclosing frame.
	done := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expect = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.object && top.expect {
				if name, ok := tok.(string); ok {
					if _, seen := top.keys[name]; seen {
						return &Duplicate{Path: top.path, Name: name}
					}
					top.keys[name] = struct{}{}
					top.member = name
					top.expect = false
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{path: childPath(), object: true, keys: map[string]struct{}{}, expect: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: childPath()})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	if strings.ContainsAny(name, ".[]") {
		return fmt.Sprintf("%s[%q]", path, name)
	}
	return path + "." + name
}
