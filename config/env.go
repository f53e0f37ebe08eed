package config

import (
	"fmt"
	"strings"

	"github.com/knadh/koanf/providers/env/v2"
	"go.yaml.in/yaml/v3"
)

const envPrefix = "FEEDBRIDGE_"

// readEnv reads FEEDBRIDGE_SECTION__KEY variables. Every configuration key is nested, so a variable
// without "__" is not configuration (FEEDBRIDGE_CONFIG, FEEDBRIDGE_TEST_POSTGRES_URL) and is skipped,
// unless it looks like a key written with single underscores, which is reported instead of ignored.
func readEnv(environ func() []string) (map[string]any, []error) {
	var problems []error
	sections := sectionNames()
	p := env.Provider(".", env.Opt{
		Prefix:      envPrefix,
		EnvironFunc: environ,
		TransformFunc: func(name, value string) (string, any) {
			rest := strings.ToLower(strings.TrimPrefix(name, envPrefix))
			if rest == "events" { // a list of entries, parsed below
				return rest, value
			}
			if !strings.Contains(rest, "__") {
				for _, s := range sections {
					if strings.HasPrefix(rest, s+"_") {
						problems = append(problems, fmt.Errorf(
							"environment variable %s: nested keys need a double underscore, e.g. %s%s__%s",
							name, envPrefix, strings.ToUpper(s), strings.ToUpper(rest[len(s)+1:])))
					}
				}
				return "", nil
			}
			return strings.ReplaceAll(rest, "__", "."), value
		},
	})
	m, err := p.Read()
	if err != nil {
		return nil, []error{fmt.Errorf("environment: %w", err)}
	}
	problems = append(problems, parseConnectorEnv(m)...)
	if s, ok := m["events"].(string); ok {
		var parsed any
		if err := yaml.Unmarshal([]byte(s), &parsed); err != nil {
			// The value holds secrets, so the parser's message (which can quote it) is not repeated.
			problems = append(problems, fmt.Errorf("environment variable %s: not a JSON list of entries", envName("events")))
			delete(m, "events")
		} else {
			m["events"] = parsed
		}
	}
	return m, problems
}

// parseConnectorEnv lets FEEDBRIDGE_CONNECTORS__EMAIL hold the kind's entries as a JSON (or YAML) list,
// the only practical way to express a list of mappings in one variable.
func parseConnectorEnv(m map[string]any) []error {
	conns, ok := m["connectors"].(map[string]any)
	if !ok {
		return nil
	}
	var problems []error
	for kind, v := range conns {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var parsed any
		if err := yaml.Unmarshal([]byte(s), &parsed); err != nil {
			// The value may hold secrets, so the parser's message (which can quote it) is not repeated.
			problems = append(problems, fmt.Errorf("environment variable %s: not a JSON list of entries",
				envName("connectors."+kind)))
			delete(conns, kind)
			continue
		}
		conns[kind] = parsed
	}
	return problems
}

// envName is the variable that sets a dotted key.
func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "__"))
}
