package csvimport

import (
	"sort"

	"github.com/feedbridge/feedbridge/core"
)

// maxUnknownTags bounds how many distinct unknown labels a run remembers for its log line.
const maxUnknownTags = 20

// tagMatcher maps a row's tag labels to the workspace's tag ids. Labels match ignoring case, spaces,
// '_', '-' and '.', like headers ("Feature Request" finds "feature-request"). A label without a tag is
// left off the record, which is still imported, and named in the run's log line: failing a whole row of
// feedback over a label that a helpdesk invented would lose more than it protects.
type tagMatcher struct {
	byKey   map[string]core.ID
	unknown map[string]int
}

func newTagMatcher(tags []core.Lookup) tagMatcher {
	m := tagMatcher{byKey: make(map[string]core.ID, len(tags)), unknown: map[string]int{}}
	for _, t := range tags {
		if k := normHeader(t.Label); m.byKey[k] == "" {
			m.byKey[k] = t.ID
		}
	}
	return m
}

func (m tagMatcher) ids(labels []string) []core.ID {
	var out []core.ID
	for _, l := range labels {
		if id, ok := m.byKey[normHeader(l)]; ok {
			out = append(out, id)
			continue
		}
		if _, seen := m.unknown[l]; seen || len(m.unknown) < maxUnknownTags {
			m.unknown[l]++
		}
	}
	return out
}

// unknownLabels lists the labels that matched no tag, most frequent first.
func (m tagMatcher) unknownLabels() []string {
	out := make([]string, 0, len(m.unknown))
	for l := range m.unknown {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if m.unknown[out[i]] != m.unknown[out[j]] {
			return m.unknown[out[i]] > m.unknown[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
