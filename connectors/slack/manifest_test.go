package slack

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestManifestMatchesHandlers keeps deploy/slack/manifest.yaml in step with what the handlers serve: an
// admin pastes it once, so a drifted command, callback id, URL or scope would only show in production.
func TestManifestMatchesHandlers(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/slack/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Features struct {
			SlashCommands []struct {
				Command      string `yaml:"command"`
				URL          string `yaml:"url"`
				ShouldEscape bool   `yaml:"should_escape"`
			} `yaml:"slash_commands"`
			Shortcuts []struct {
				Type       string `yaml:"type"`
				CallbackID string `yaml:"callback_id"`
			} `yaml:"shortcuts"`
		} `yaml:"features"`
		OAuth struct {
			Scopes struct{ Bot []string } `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Interactivity struct {
				Enabled    bool   `yaml:"is_enabled"`
				RequestURL string `yaml:"request_url"`
			} `yaml:"interactivity"`
		} `yaml:"settings"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(false)
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, c := range m.Features.SlashCommands {
		commands = append(commands, c.Command)
		if !strings.HasPrefix(c.URL, "https://") || !strings.HasSuffix(c.URL, "/slack/commands") || !c.ShouldEscape {
			t.Errorf("command %s: url %q, should_escape %v", c.Command, c.URL, c.ShouldEscape)
		}
	}
	slices.Sort(commands)
	def, err := mustKind(t).Defaults()
	if err != nil {
		t.Fatal(err)
	}
	for name := range def.(*Config).Commands {
		if _, ok := slices.BinarySearch(commands, name); !ok {
			t.Errorf("manifest lacks %s", name)
		}
	}
	if len(m.Features.Shortcuts) != 1 || m.Features.Shortcuts[0].CallbackID != callbackSaveFeedback || m.Features.Shortcuts[0].Type != "message" {
		t.Errorf("shortcuts %+v", m.Features.Shortcuts)
	}
	if i := m.Settings.Interactivity; !i.Enabled || !strings.HasSuffix(i.RequestURL, "/slack/interactions") {
		t.Errorf("interactivity %+v", i)
	}
	for _, scope := range []string{"commands", "chat:write", "users:read", "users:read.email"} {
		if !slices.Contains(m.OAuth.Scopes.Bot, scope) {
			t.Errorf("bot scopes %v lack %s", m.OAuth.Scopes.Bot, scope)
		}
	}
}
