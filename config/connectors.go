package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/feedbridge/feedbridge/connectors"
)

// The connectors section is described by the connectors registry: each registered kind's config struct is
// its spec. This file is the only place the config package looks at it, and it names no kind.

// connectorKeyProblems returns one problem per unknown kind under `connectors` and per unknown key of an
// entry, named by its full path (connectors.csv[0].bogus). where says which layer the key came from.
func connectorKeyProblems(m map[string]any, where func(key string) string) []error {
	conns, ok := m["connectors"].(map[string]any)
	if !ok {
		return nil
	}
	var problems []error
	for _, kindName := range sortedKeys(conns) {
		kind, known := connectors.Lookup(kindName)
		path := "connectors." + kindName
		if !known {
			problems = append(problems, fmt.Errorf("unknown key %q %s (connector kinds: %s)", path, where(path),
				strings.Join(connectors.Names(), ", ")))
			continue
		}
		entries, isList := conns[kindName].([]any)
		if !isList {
			continue // the decoder reports a wrong shape with its own message
		}
		fields := kind.Spec()
		for i, e := range entries {
			entry, isMap := e.(map[string]any)
			if !isMap {
				continue
			}
			for _, k := range connectors.UnknownKeys(fields, entry, fmt.Sprintf("%s[%d]", path, i)) {
				problems = append(problems, fmt.Errorf("unknown key %q %s", k, where(path)))
			}
		}
	}
	return problems
}

// redactConnectors masks every secret of every entry by its kind's spec; keys of a kind that is not
// registered are masked whole, so nothing unknown is ever shown.
func redactConnectors(c Connectors) map[string]any {
	out := make(map[string]any, len(c))
	for kindName, entries := range c {
		var fields []connectors.Field
		if kind, ok := connectors.Lookup(kindName); ok {
			fields = kind.Spec()
		}
		list := make([]any, len(entries))
		for i, e := range entries {
			list[i] = connectors.Mask(fields, e, Mask, redactURL)
		}
		out[kindName] = list
	}
	return out
}

// connectorReference documents each registered kind from its spec.
func connectorReference() string {
	var b strings.Builder
	for _, k := range connectors.Kinds() {
		fmt.Fprintf(&b, "\n## connectors.%s entries\n\n%s\n\nEach entry of `connectors.%s` is a mapping; unknown "+
			"keys are refused.\n\n| key | required | type | default | description |\n|---|---|---|---|---|\n", k.Name, k.Summary, k.Name)
		writeFields(&b, k.Spec(), "")
	}
	return b.String()
}

func writeFields(b *strings.Builder, fields []connectors.Field, prefix string) {
	for _, f := range fields {
		def := `""`
		if f.Default != "" {
			def = "`" + f.Default + "`"
		}
		desc := f.Description
		if f.Secret {
			desc = "Secret; may be `file:/path`, read at use. " + desc
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", join(prefix, f.Key), requiredText(f.Required), f.Type, def, desc)
		if f.Fields != nil {
			writeFields(b, f.Fields, join(prefix, f.Key))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// requiredText is the reference's "required" cell: **yes**, the condition, or "no".
func requiredText(r string) string {
	switch r {
	case "":
		return "no"
	case "yes":
		return "**yes**"
	}
	return "**" + r + "**"
}
