package daemon

import (
	"slices"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func TestConfiguredEntries(t *testing.T) {
	const ws = "0123456789abcdef01234567"
	byKind := map[string][]map[string]any{
		"csv":     {{"name": "nightly", "workspace": ws}},
		"webhook": {{"name": "crm", "workspace": ws}, {"workspace": ws}},
	}
	is := configuredFunc(func() map[string][]map[string]any { return byKind })
	tests := []struct {
		name       string
		ws         core.ID
		kind, what string
		want       bool
	}{
		{"configured", ws, "csv", "nightly", true},
		{"another kind", ws, "email", "nightly", false},
		{"another workspace", "fedcba9876543210fedcba98", "csv", "nightly", false},
		{"an unnamed entry by its position", ws, "webhook", "#2", true},
		{"removed", ws, "csv", "hourly", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := is(tc.ws, tc.kind, tc.what); got != tc.want {
				t.Fatalf("configured(%s, %s, %s) = %v", tc.ws, tc.kind, tc.what, got)
			}
		})
	}
}

// TestRemovedEntryFaultsCleared: the fault of an entry that the configuration no longer has goes, while
// the faults of configured entries and of what is not a connector stay.
func TestRemovedEntryFaultsCleared(t *testing.T) {
	f := &core.Faults{}
	for _, n := range []string{"csv:gone", "csv:kept", "email:inbox", "config reload"} {
		f.Set(n, true)
	}
	clearRemovedFaults(f, map[string][]map[string]any{"csv": {{"name": "kept"}}, "email": {{"name": "inbox"}}})
	if got, want := f.List(), []string{"config reload", "csv:kept", "email:inbox"}; !slices.Equal(got, want) {
		t.Fatalf("faults %v, want %v", got, want)
	}
}
