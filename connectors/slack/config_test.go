package slack

import (
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors"
)

const testWS = "65f1a2b3c4d5e6f708192a3b"

// TestBuildValidates checks every entry as config check does: each problem names the entry and the key.
func TestBuildValidates(t *testing.T) {
	valid := func(name, secret, team string) map[string]any {
		return map[string]any{"name": name, "workspace": testWS, "signing_secret": secret, "team_id": team}
	}
	with := func(e map[string]any, k string, v any) map[string]any { e[k] = v; return e }
	tests := []struct {
		name    string
		entries []map[string]any
		wants   []string // substrings of the error; none means valid
	}{
		{"one entry", []map[string]any{valid("a", "s1", "")}, nil},
		{"one app two teams", []map[string]any{valid("a", "s1", "T1"), valid("b", "s1", "T2")}, nil},
		{"two apps", []map[string]any{valid("a", "s1", ""), valid("b", "s2", "")}, nil},
		{"missing everything", []map[string]any{{}}, []string{"#1: name: is required", "#1: workspace: must be", "#1: signing_secret: is required"}},
		{"bad workspace", []map[string]any{with(valid("a", "s", ""), "workspace", "acme")}, []string{`a: workspace: must be`}},
		{"duplicate name", []map[string]any{valid("a", "s1", ""), valid("a", "s2", "")}, []string{"a: name: is used by another entry"}},
		{"ambiguous routing", []map[string]any{valid("a", "s1", "T1"), valid("b", "s1", "T1")}, []string{`b: team_id: same signing_secret and team_id as entry "a"`}},
		{"ambiguous routing beside another problem", []map[string]any{valid("a", "s1", ""), valid("b", "s1", ""), {"name": "c"}},
			[]string{`b: team_id: same signing_secret`, "c: signing_secret: is required"}},
		{"bad command name", []map[string]any{with(valid("a", "s", ""), "commands", map[string]any{"feedback": "feedback"})},
			[]string{`a: commands: "feedback" is not a slash command name`}},
		{"bad command kind", []map[string]any{with(valid("a", "s", ""), "commands", map[string]any{"/bug": "bug"})},
			[]string{`a: commands: /bug must be feedback or idea, not "bug"`}},
		{"api_url of a gateway", []map[string]any{with(valid("a", "s", ""), "api_url", "https://slack-gw.example.com/api")}, nil},
		{"api_url over http on loopback", []map[string]any{with(valid("a", "s", ""), "api_url", "http://127.0.0.1:9/api/")}, nil},
		{"api_url over http elsewhere", []map[string]any{with(valid("a", "s", ""), "api_url", "http://slack-gw.example.com/api/")},
			[]string{"a: api_url: must be https (plain http only to a loopback address)"}},
		{"api_url not a URL", []map[string]any{with(valid("a", "s", ""), "api_url", "slack.com/api")}, []string{"a: api_url: must be an absolute https URL"}},
		{"api_url with credentials", []map[string]any{with(valid("a", "s", ""), "api_url", "https://u:p@slack.com/api/")}, []string{"a: api_url: must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.entries, connectors.Env{})
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.wants)
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, e := range tt.entries {
				if s, _ := e["signing_secret"].(string); s != "" && strings.Contains(err.Error(), s+"\"") {
					t.Errorf("error names a secret: %v", err)
				}
			}
		})
	}
}

func TestValidateDefaultsCommands(t *testing.T) {
	c := Config{Name: "a", Workspace: testWS, SigningSecret: "s", Commands: map[string]string{"/fb": "FEEDBACK"}}
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	if c.Commands["/fb"] != kindFeedback {
		t.Errorf("kind not normalized: %v", c.Commands)
	}
	d := Config{Name: "b", Workspace: testWS, SigningSecret: "s"}
	if err := d.validate(); err != nil {
		t.Fatal(err)
	}
	if d.Commands["/feedback"] != kindFeedback || d.Commands["/idea"] != kindIdea || len(d.Commands) != 2 {
		t.Errorf("default commands = %v", d.Commands)
	}
}

func TestPick(t *testing.T) {
	cfgs := []Config{
		{Name: "team1", TeamID: "T1"},
		{Name: "any", TeamID: ""},
		{Name: "team2", TeamID: "T2"},
	}
	tests := []struct {
		name   string
		signed []int
		team   string
		want   string
	}{
		{"exact team", []int{0, 1, 2}, "T2", "team2"},
		{"fallback to entry without team", []int{0, 1, 2}, "T9", "any"},
		{"team entry only among signed", []int{0}, "T1", "team1"},
		{"team not connected", []int{0, 2}, "T9", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, ok := pick(cfgs, tt.signed, tt.team)
			got := ""
			if ok {
				got = cfgs[i].Name
			}
			if got != tt.want {
				t.Errorf("pick = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPostersTakeTheEntriesAPIURL: closing the loop posts with each entry's token to its api_url, with the
// trailing slash its calls append to; entries without a bot token cannot post and are left out.
func TestPostersTakeTheEntriesAPIURL(t *testing.T) {
	got := Posters([]map[string]any{
		{"name": "gw", "workspace": testWS, "signing_secret": "s1", "bot_token": "xoxb-1", "api_url": "https://gw.example.com/slack"},
		{"name": "default", "workspace": testWS, "signing_secret": "s2", "bot_token": "xoxb-2", "team_id": "T2"},
		{"name": "no-bot", "workspace": testWS, "signing_secret": "s3", "team_id": "T3"},
	})
	want := map[string]Poster{"gw": {Token: "xoxb-1", APIURL: "https://gw.example.com/slack/"},
		"default": {Token: "xoxb-2", APIURL: DefaultAPIURL}}
	if len(got) != len(want) || got["gw"] != want["gw"] || got["default"] != want["default"] {
		t.Fatalf("posters %+v, want %+v", got, want)
	}
}
