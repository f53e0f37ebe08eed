package config

import (
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors"
)

// TestRequiredKeysMarked: every key the reference marks required (yes) is refused when an entry leaves it
// out, and the reference shows the mark, so the two cannot drift apart. Before the fix the reference did
// not say which keys were required.
func TestRequiredKeysMarked(t *testing.T) {
	ref := string(Reference())
	for _, k := range connectors.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			_, err := connectors.BuildKind(k.Name, []map[string]any{{}}, connectors.Env{})
			marked := 0
			for _, f := range k.Spec() {
				if f.Required != "yes" {
					continue
				}
				marked++
				if err == nil || !strings.Contains(err.Error(), f.Key+":") {
					t.Errorf("%s is marked required, but an entry without it gives %v", f.Key, err)
				}
				if !strings.Contains(ref, "| `"+f.Key+"` | **yes** |") {
					t.Errorf("the reference does not mark %s required", f.Key)
				}
			}
			if marked < 2 {
				t.Errorf("%d keys marked required; name and workspace at least are", marked)
			}
		})
	}
	if !strings.Contains(ref, "| `insights.openai.model` | **with provider openai** |") {
		t.Error("the reference does not say insights.openai.model is required with provider openai")
	}
}
