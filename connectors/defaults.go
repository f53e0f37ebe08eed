package connectors

import (
	"fmt"
	"iter"
	"reflect"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"
)

// The kit applies a kind's defaults: an entry decodes onto the value Kind.Config returns, whose fields
// that are still zero take the value of their `default` tag (written as YAML: "60s", "true",
// "{/feedback: feedback}"). A key the entry gives wins, even when it is blank or zero ("" for a prefix,
// 0 for a queue threshold); a key it leaves out keeps the default. So the `default` tag is both what the
// configuration reference shows and what the entry gets, and no kind re-applies a default by hand.

// tagDefaults sets every zero field of the struct v points to (sections included) from its `default` tag.
func tagDefaults(v reflect.Value) error {
	v = reflect.Indirect(v)
	for i, sf := range keyed(v.Type()) {
		key, f := sf.Tag.Get("koanf"), v.Field(i)
		if isSection(sf.Type) {
			if err := tagDefaults(f.Addr()); err != nil {
				return fmt.Errorf("%s.%w", key, err)
			}
			continue
		}
		tag, ok := sf.Tag.Lookup("default")
		if !ok || !f.IsZero() {
			continue
		}
		var parsed any
		if err := yaml.Unmarshal([]byte(tag), &parsed); err != nil {
			return fmt.Errorf("%s: default %q: %w", key, tag, err)
		}
		if parsed == nil {
			continue
		}
		dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
			Result:           f.Addr().Interface(),
			WeaklyTypedInput: true,
			DecodeHook:       mapstructure.ComposeDecodeHookFunc(mapstructure.StringToTimeDurationHookFunc(), mapstructure.StringToSliceHookFunc(",")),
		})
		if err != nil {
			return err
		}
		if err := dec.Decode(parsed); err != nil {
			return fmt.Errorf("%s: default %q: %w", key, tag, err)
		}
	}
	return nil
}

// ApplyDefaults sets every zero field of out, a pointer to a kind's config struct, from its `default`
// tag, as Decode does for the keys an entry leaves out: for a kind's tests that build a config struct in
// Go rather than decode one.
func ApplyDefaults(out any) error { return tagDefaults(reflect.ValueOf(out)) }

// keepDefaults copies into out, field by field, the value def holds for every key the entry did not give;
// a section the entry gave is merged key by key.
func keepDefaults(out, def reflect.Value, given map[string]bool, prefix string) {
	for i, sf := range keyed(out.Type()) {
		path := joinKey(prefix, sf.Tag.Get("koanf"))
		switch {
		case !given[path]:
			out.Field(i).Set(def.Field(i))
		case isSection(sf.Type):
			keepDefaults(out.Field(i), def.Field(i), given, path)
		}
	}
}

// keyed yields the index and field of each exported field of struct type t that names a key.
func keyed(t reflect.Type) iter.Seq2[int, reflect.StructField] {
	return func(yield func(int, reflect.StructField) bool) {
		for i := range t.NumField() {
			sf := t.Field(i)
			key := sf.Tag.Get("koanf")
			if key == "" || key == "-" || !sf.IsExported() {
				continue
			}
			if !yield(i, sf) {
				return
			}
		}
	}
}

// givenKeys lists the keys of a raw entry, nested mappings as "section.key".
func givenKeys(entry map[string]any, prefix string, into map[string]bool) map[string]bool {
	if into == nil {
		into = make(map[string]bool, len(entry))
	}
	for k, v := range entry {
		path := joinKey(prefix, k)
		into[path] = true
		if sub, ok := v.(map[string]any); ok {
			givenKeys(sub, path, into)
		}
	}
	return into
}

// Defaults returns a new entry of the kind holding its defaults: Config's value with the `default` tags
// applied. It is what an entry that gives only its required keys decodes to.
func (k Kind) Defaults() (any, error) {
	c := k.Config()
	if err := tagDefaults(reflect.ValueOf(c)); err != nil {
		return nil, fmt.Errorf("connectors.%s: %w", k.Name, err)
	}
	return c, nil
}
