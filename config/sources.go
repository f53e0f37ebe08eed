package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// SourceSet is the set of source labels this configuration gives records: the canonical set plus
// sources.add. A sources.add that Validate refuses gives the canonical set.
func (c *Config) SourceSet() *core.SourceSet {
	set, err := core.NewSourceSet(c.Sources.Add)
	if err != nil {
		set, _ = core.NewSourceSet(nil)
	}
	return set
}

// validateSources checks sources.add and that every connector entry's own source label is one of the
// set: an unknown one would be stored as Other for every record of the entry, which is never what its
// author meant.
func (c *Config) validateSources() []error {
	set, err := core.NewSourceSet(c.Sources.Add)
	if err != nil {
		return []error{fmt.Errorf("sources.add: %w", err)}
	}
	var errs []error
	kinds := make([]string, 0, len(c.Connectors))
	for kind := range c.Connectors {
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		for i, entry := range c.Connectors[kind] {
			label, ok := entry["source"].(string)
			if !ok || strings.TrimSpace(label) == "" {
				continue
			}
			if _, known := set.Lookup(label); !known {
				errs = append(errs, fmt.Errorf("connectors.%s[%d].source: %q is not a source label (one of %s, a synonym, or a label added under sources.add)",
					kind, i, label, strings.Join(set.Labels(), ", ")))
			}
		}
	}
	return errs
}
