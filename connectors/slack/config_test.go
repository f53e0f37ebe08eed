package slack

import (
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors"
)

const testWS = "65f1a2b3c4d5e6f708192a3b"

func TestValidateAll(t *testing.T) {
	valid := func(name, secret, team string) Config {
		return Config{Name: name, Workspace: testWS, SigningSecret: connectors.Secret(secret), TeamID: team}
	}
	tests := []struct {
		name  string
		cfgs  []Config
		wants []string // substrings of the error; none means valid
	}{
		{"one entry", []Config{valid("a", "s1", "")}, nil},
		{"one app two teams", []Config{valid("a", "s1", "T1"), valid("b", "s1", "T2")}, nil},
		{"two apps", []Config{valid("a", "s1", ""), valid("b", "s2", "")}, nil},
		{"missing everything", []Config{{}}, []string{"name is required", "workspace must be", "signing_secret is required"}},
		{"bad workspace", []Config{{Name: "a", Workspace: "acme", SigningSecret: "s"}}, []string{`slack "a": workspace must be`}},
		{"duplicate name", []Config{valid("a", "s1", ""), valid("a", "s2", "")}, []string{"name is used by another entry"}},
		{"ambiguous routing", []Config{valid("a", "s1", "T1"), valid("b", "s1", "T1")}, []string{`same signing_secret and team_id as entry "a"`}},
		{"bad command name", []Config{{Name: "a", Workspace: testWS, SigningSecret: "s", Commands: map[string]string{"feedback": "feedback"}}},
			[]string{`"feedback" is not a slash command name`}},
		{"bad command kind", []Config{{Name: "a", Workspace: testWS, SigningSecret: "s", Commands: map[string]string{"/bug": "bug"}}},
			[]string{`/bug must be feedback or idea, not "bug"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateAll(tt.cfgs)
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
			for _, c := range tt.cfgs {
				if c.SigningSecret != "" && strings.Contains(err.Error(), string(c.SigningSecret)+"\"") {
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
