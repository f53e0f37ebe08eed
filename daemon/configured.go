package daemon

import (
	"slices"
	"strings"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// entryKey names one configured connector entry: its workspace, kind and name.
type entryKey struct {
	ws         core.ID
	kind, name string
}

// configuredEntries is the set of entries in byKind (a configuration's connectors section).
func configuredEntries(byKind map[string][]map[string]any) map[entryKey]bool {
	out := map[entryKey]bool{}
	for kind, entries := range byKind {
		for i, e := range entries {
			ws, _ := e["workspace"].(string)
			out[entryKey{ws: core.ID(ws), kind: kind, name: connectors.EntryName(e, i)}] = true
		}
	}
	return out
}

// clearRemovedFaults drops the faults of connector entries that the configuration no longer has: a removed
// entry fails no more, and not every kind reports a last state as it stops.
func clearRemovedFaults(faults *core.Faults, byKind map[string][]map[string]any) {
	if faults == nil {
		return
	}
	kinds := connectors.Names()
	names := map[string]bool{}
	for kind, entries := range byKind {
		for i, e := range entries {
			names[kind+":"+connectors.EntryName(e, i)] = true
		}
	}
	for _, f := range faults.List() {
		kind, _, ok := strings.Cut(f, ":")
		if ok && slices.Contains(kinds, kind) && !names[f] {
			faults.Set(f, false)
		}
	}
}

// configuredFunc is api.Options.Configured over the configuration that current returns.
func configuredFunc(current func() map[string][]map[string]any) func(ws core.ID, kind, name string) bool {
	return func(ws core.ID, kind, name string) bool {
		return configuredEntries(current())[entryKey{ws: ws, kind: kind, name: name}]
	}
}
