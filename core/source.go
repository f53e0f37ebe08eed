package core

import (
	"fmt"
	"strings"
)

// Sources is the canonical set of source labels.
var Sources = []string{
	"Manual", "API", "Email", "Slack", "CSV", "Intercom", "Zendesk", "HubSpot", "Salesforce",
	"Microsoft Teams", "Discord", "Web", "Widget", "Chrome Extension", "Zapier", "Jira", "Linear", "Other",
}

// sourceKeys maps a squashed label (see squashSource) to its canonical form: every canonical label plus
// the synonyms of the contract. Built once; read-only afterwards.
var sourceKeys = func() map[string]string {
	m := make(map[string]string, len(Sources)+16)
	for _, s := range Sources {
		m[squashSource(s)] = s
	}
	synonyms := map[string]string{
		"e-mail": "Email", "mail": "Email", "imap": "Email", "inbox": "Email",
		"csv import": "CSV", "import": "CSV", "spreadsheet": "CSV", "excel": "CSV",
		"teams": "Microsoft Teams", "ms teams": "Microsoft Teams",
		"website": "Web", "portal": "Web",
		"rest":   "API",
		"chrome": "Chrome Extension", "extension": "Chrome Extension",
	}
	for k, v := range synonyms {
		m[squashSource(k)] = v
	}
	return m
}()

// squashSource drops case, spaces, '-', '_' and '.' so that "E-Mail", "e_mail" and "EMAIL" compare equal.
func squashSource(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case ' ', '\t', '-', '_', '.':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NormalizeSource maps a free-form origin label onto the canonical set (see SourceSet.Normalize).
func NormalizeSource(label, def string) string { return defaultSources.Normalize(label, def) }

// defaultSources is the canonical set with nothing added.
var defaultSources = &SourceSet{labels: Sources, keys: sourceKeys}

// SourceSet is the canonical set of source labels, extended by configuration (sources.add) for every
// workspace alike. It is read-only once made.
type SourceSet struct {
	labels []string
	keys   map[string]string // squashed label or synonym → label
}

// maxSourceLabel bounds an added label: it is shown in lists and used as a metric label.
const maxSourceLabel = 50

// NewSourceSet is the canonical set plus add, each label kept as written (trimmed). A blank or overlong
// label, or one that matches a label or synonym already in the set, is refused: it would never be chosen.
func NewSourceSet(add []string) (*SourceSet, error) {
	if len(add) == 0 {
		return defaultSources, nil
	}
	s := &SourceSet{labels: append([]string(nil), Sources...), keys: make(map[string]string, len(sourceKeys)+len(add))}
	for k, v := range sourceKeys {
		s.keys[k] = v
	}
	for _, l := range add {
		l = strings.TrimSpace(l)
		key := squashSource(l)
		switch {
		case key == "":
			return nil, fmt.Errorf("a source label must not be blank")
		case len([]rune(l)) > maxSourceLabel:
			return nil, fmt.Errorf("source label %q is longer than %d characters", Truncate(l, 20, "…"), maxSourceLabel)
		case s.keys[key] != "":
			return nil, fmt.Errorf("source label %q is already in the set as %q", l, s.keys[key])
		}
		s.keys[key] = l
		s.labels = append(s.labels, l)
	}
	return s, nil
}

// Labels lists the set: the canonical labels, then the added ones.
func (s *SourceSet) Labels() []string { return append([]string(nil), s.labels...) }

// Lookup returns the label that label (a label in any spelling, or a synonym) stands for.
func (s *SourceSet) Lookup(label string) (string, bool) {
	v, ok := s.keys[squashSource(label)]
	return v, ok
}

// Normalize maps a free-form origin label onto the set. A blank label gives def, the source of whatever
// submitted it (a connector's configured label), normalized the same way; blank def gives "Manual". An
// unknown label, or an unknown def, gives "Other": nothing outside the set is ever stored.
func (s *SourceSet) Normalize(label, def string) string {
	if strings.TrimSpace(label) == "" {
		if strings.TrimSpace(def) == "" {
			return "Manual"
		}
		label = def
	}
	if v, ok := s.Lookup(label); ok {
		return v
	}
	return "Other"
}
