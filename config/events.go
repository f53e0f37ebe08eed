package config

import (
	"fmt"
	"strings"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/events"
)

// Subscribers holds the `events` entries undecoded; the events package decodes and checks them.
type Subscribers []map[string]any

// eventFields are the keys of an `events` entry, read from the events package's entry struct.
func eventFields() []connectors.Field {
	return connectors.Kind{Config: func() any { return events.NewEntry() }}.Spec()
}

// eventKeyProblems returns one problem per unknown key of an `events` entry, named by its full path.
func eventKeyProblems(m map[string]any, where func(key string) string) []error {
	entries, ok := m["events"].([]any)
	if !ok {
		return nil
	}
	var problems []error
	fields := eventFields()
	for i, e := range entries {
		if entry, isMap := e.(map[string]any); isMap {
			for _, k := range connectors.UnknownKeys(fields, entry, fmt.Sprintf("events[%d]", i)) {
				problems = append(problems, fmt.Errorf("unknown key %q %s", k, where("events")))
			}
		}
	}
	return problems
}

// validateEvents decodes and checks the subscribers without reading secret files.
func (c *Config) validateEvents() []error {
	_, problems := events.Parse(c.Events, false)
	return problems
}

// SubscriberSecretProblems are the problems of the subscribers that Validate does not list because it
// reads no file: their secret files, read once here (config check, reload).
func (c *Config) SubscriberSecretProblems() []error {
	_, without := events.Parse(c.Events, false)
	_, with := events.Parse(c.Events, true)
	known := map[string]bool{}
	for _, p := range without {
		known[p.Error()] = true
	}
	var out []error
	for _, p := range with {
		if !known[p.Error()] {
			out = append(out, p)
		}
	}
	return out
}

// Subscribers decodes the `events` entries, secret files read once; an error names the first problem.
func (c *Config) Subscribers() ([]events.Entry, error) {
	entries, problems := events.Parse(c.Events, true)
	if len(problems) > 0 {
		return nil, fmt.Errorf("events: %w", problems[0])
	}
	return entries, nil
}

func redactEvents(s Subscribers) []any {
	fields := eventFields()
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = connectors.Mask(fields, e, Mask, redactURL)
	}
	return out
}

// eventsReference documents the keys of an `events` entry.
func eventsReference() string {
	var b strings.Builder
	b.WriteString("\n## events entries\n\nEach entry of `events` is a subscriber: every change of its workspace of a " +
		"type it asks for is POSTed to its `url`, signed (see docs/events.md). Unknown keys are refused.\n\n" +
		"| key | required | type | default | description |\n|---|---|---|---|---|\n")
	writeFields(&b, eventFields(), "")
	return b.String()
}
