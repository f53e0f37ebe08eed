package config

import (
	"reflect"
	"sort"
	"time"
)

// The struct tags are the single source of key names: defaults, unknown-key checks, flags, redaction and
// the generated reference all walk them, so a new field cannot be forgotten by one of them.

var durationType = reflect.TypeFor[time.Duration]()

// leaf is one configurable key: a field that is not itself a section.
type leaf struct {
	Path   string
	Type   reflect.Type
	Secret string // struct tag secret: "true" (mask all) or "url" (mask the password inside the URL)
	Index  []int  // for reflect.Value.FieldByIndex on a Config
}

// leaves lists every key of t in declaration order, with full dotted paths.
func leaves(t reflect.Type, prefix string, index []int) []leaf {
	var out []leaf
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("koanf")
		if name == "" {
			continue
		}
		path := join(prefix, name)
		idx := append(append([]int{}, index...), i)
		if isSection(f.Type) {
			out = append(out, leaves(f.Type, path, idx)...)
			continue
		}
		out = append(out, leaf{Path: path, Type: f.Type, Secret: f.Tag.Get("secret"), Index: idx})
	}
	return out
}

// isSection reports whether a field type is a nested mapping of known keys (a struct other than Duration).
func isSection(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != durationType
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// unknownKeys returns the full dotted path of every key in m that t does not declare, sorted. Values of
// the wrong shape are left to the decoder, which reports them with their own message.
func unknownKeys(m map[string]any, t reflect.Type, prefix string) []string {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("koanf"); name != "" {
			fields[name] = t.Field(i).Type
		}
	}
	var out []string
	for k, v := range m {
		ft, ok := fields[k]
		switch {
		case !ok:
			out = append(out, join(prefix, k))
		case isSection(ft):
			if sub, isMap := v.(map[string]any); isMap {
				out = append(out, unknownKeys(sub, ft, join(prefix, k))...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// toMap turns a section struct into a nested map keyed like the YAML file. Durations stay time.Duration
// so that loading the map back as defaults keeps their type.
func toMap(v reflect.Value) map[string]any {
	out := map[string]any{}
	t := v.Type()
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("koanf")
		if name == "" {
			continue
		}
		fv := v.Field(i)
		if isSection(fv.Type()) {
			out[name] = toMap(fv)
			continue
		}
		out[name] = fv.Interface()
	}
	return out
}

// sectionNames are the top-level keys; used to spot FEEDBRIDGE_LOG_LEVEL-style mistakes.
func sectionNames() []string {
	t := reflect.TypeFor[Config]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, t.Field(i).Tag.Get("koanf"))
	}
	return out
}
