package connectors

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Field describes one key of a connector entry, read from the kind's config struct: the koanf tag names
// it, the doc tag describes it, a `default` tag overrides the shown default, a `required` tag says when it
// must be given, and the Go type gives its type and whether it is a secret.
type Field struct {
	Key         string
	Type        string // string, secret, integer, number, boolean, duration, list of strings, map, map of secrets, section
	Default     string // "" when there is none worth showing
	Description string
	Secret      bool    // the value (or every value of the map) is a Secret
	Fields      []Field // the keys of a section (a nested mapping of known keys)
	// Required is "yes", the condition under which the key is required ("with auth hmac"), or "" when
	// it never is; from the `required` tag.
	Required string
}

var (
	secretType   = reflect.TypeFor[Secret]()
	durationType = reflect.TypeFor[time.Duration]()
)

// Spec lists the keys of the kind's entries in declaration order.
func (k Kind) Spec() []Field {
	v := reflect.ValueOf(k.Config()).Elem()
	return fieldsOf(v)
}

func fieldsOf(v reflect.Value) []Field {
	var out []Field
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		key := sf.Tag.Get("koanf")
		if key == "" || key == "-" {
			continue
		}
		ft := sf.Type
		fv := v.Field(i)
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
			if fv.IsNil() {
				fv = reflect.Zero(ft)
			} else {
				fv = fv.Elem()
			}
		}
		f := Field{Key: key, Description: sf.Tag.Get("doc"), Type: typeName(ft), Required: sf.Tag.Get("required")}
		switch {
		case isSection(ft):
			f.Fields = fieldsOf(fv)
		case ft == secretType:
			f.Secret = true
		case ft.Kind() == reflect.Map && ft.Elem() == secretType:
			f.Secret = true
		}
		if d, ok := sf.Tag.Lookup("default"); ok {
			f.Default = d
		} else if !f.Secret && f.Fields == nil {
			f.Default = defaultText(fv)
		}
		out = append(out, f)
	}
	return out
}

func isSection(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != durationType
}

func typeName(t reflect.Type) string {
	switch {
	case t == secretType:
		return "secret"
	case t == durationType:
		return "duration"
	case isSection(t):
		return "section"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "integer"
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		return "number"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "list of strings"
	case t.Kind() == reflect.Map && t.Elem() == secretType:
		return "map of secrets"
	case t.Kind() == reflect.Map:
		return "map"
	}
	return t.String()
}

// defaultText shows a non-zero default; zero values show as "" (no default worth naming).
func defaultText(v reflect.Value) string {
	if !v.IsValid() || v.IsZero() {
		return ""
	}
	switch x := v.Interface().(type) {
	case time.Duration:
		return x.String()
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	if v.Kind() == reflect.Map {
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, fmt.Sprintf("%v: %v", k.Interface(), v.MapIndex(k).Interface()))
		}
		sort.Strings(keys)
		return "{" + strings.Join(keys, ", ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

// UnknownKeys returns the path of every key of entry that fields does not declare, sorted; nested
// sections are checked too, the contents of maps (headers, mapping) are free.
func UnknownKeys(fields []Field, entry map[string]any, prefix string) []string {
	known := make(map[string]Field, len(fields))
	for _, f := range fields {
		known[f.Key] = f
	}
	var out []string
	for k, v := range entry {
		f, ok := known[k]
		switch {
		case !ok:
			out = append(out, joinKey(prefix, k))
		case f.Fields != nil:
			if sub, isMap := v.(map[string]any); isMap {
				out = append(out, UnknownKeys(f.Fields, sub, joinKey(prefix, k))...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Mask returns a copy of entry in which every secret value is replaced by mask (an empty secret stays
// empty, so a missing one shows). Keys the spec does not know are masked too: nothing unknown is shown.
// other is applied to every remaining string (the config package masks passwords inside URLs with it).
func Mask(fields []Field, entry map[string]any, mask string, other func(string) string) map[string]any {
	known := make(map[string]Field, len(fields))
	for _, f := range fields {
		known[f.Key] = f
	}
	out := make(map[string]any, len(entry))
	for k, v := range entry {
		f, ok := known[k]
		switch {
		case !ok:
			out[k] = maskAll(v, mask)
		case f.Secret:
			out[k] = maskAll(v, mask)
		case f.Fields != nil:
			if sub, isMap := v.(map[string]any); isMap {
				out[k] = Mask(f.Fields, sub, mask, other)
			} else {
				out[k] = maskAll(v, mask)
			}
		default:
			out[k] = mapStrings(v, other)
		}
	}
	return out
}

func maskAll(v any, mask string) any {
	return mapLeaves(v, func(x any) any {
		if x == nil || x == "" {
			return x
		}
		return mask
	})
}

func mapStrings(v any, fn func(string) string) any {
	return mapLeaves(v, func(x any) any {
		if s, ok := x.(string); ok {
			return fn(s)
		}
		return x
	})
}

// mapLeaves copies v, a decoded YAML or JSON value, replacing each value that is not a map or a list by fn's.
func mapLeaves(v any, fn func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mapLeaves(e, fn)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapLeaves(e, fn)
		}
		return out
	}
	return fn(v)
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
