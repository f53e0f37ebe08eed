package cli

import (
	"strings"
	"testing"
)

func TestRecordCommandsAfterCreate(t *testing.T) {
	cfg := newConfig(t, "")
	ok := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(t, cfg, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	var ws struct{ ID string }
	mustJSON(t, ok("workspace", "create", "--name", "Acme", "--plan", "pro", "--json"), &ws)
	idea := strings.TrimSpace(ok("record", "create", "--workspace", ws.ID, "--type", "Idea", "--title", "SSO"))
	other := strings.TrimSpace(ok("record", "create", "--workspace", ws.ID, "--type", "Idea", "--title", "Single sign-on"))
	fb := strings.TrimSpace(ok("record", "create", "--workspace", ws.ID, "--type", "Feedback", "--title", "We need SSO"))

	var linked struct {
		Status     string   `json:"status"`
		Links      []string `json:"links"`
		Importance int      `json:"importance"`
	}
	mustJSON(t, ok("record", "link", fb, idea, "--importance", "2", "--json"), &linked)
	if linked.Status != "Processed" || len(linked.Links) != 1 || linked.Links[0] != idea || linked.Importance != 2 {
		t.Fatalf("record link --json = %+v", linked)
	}
	var updated struct{ Status, Title string }
	mustJSON(t, ok("record", "update", idea, "--status", "in progress", "--title", "SSO login", "--json"), &updated)
	if updated.Status != "In progress" || updated.Title != "SSO login" {
		t.Fatalf("record update --json = %+v", updated)
	}
	var listed []struct {
		ID            string `json:"id"`
		FeedbackCount int    `json:"feedback_count"`
	}
	mustJSON(t, ok("record", "list", "--workspace", ws.ID, "--status", "In Progress", "--json"), &listed)
	if len(listed) != 1 || listed[0].ID != idea || listed[0].FeedbackCount != 1 {
		t.Fatalf("record list --json = %+v", listed)
	}
	if table := ok("record", "list", "--workspace", ws.ID); !strings.Contains(table, "SSO login") || !strings.HasPrefix(table, "ID") {
		t.Fatalf("record list table:\n%s", table)
	}
	var shown struct {
		Record  struct{ ID string }
		Links   []string
		History []struct {
			Action string
			Actor  struct{ Kind string }
		}
		Insights []any
	}
	mustJSON(t, ok("record", "show", idea, "--json"), &shown)
	if shown.Record.ID != idea || len(shown.Links) != 1 || shown.Links[0] != fb || shown.Insights == nil {
		t.Fatalf("record show --json = %+v", shown)
	}
	var actions []string
	for _, h := range shown.History {
		if h.Actor.Kind != "cli" {
			t.Fatalf("history actor %+v, want cli", h)
		}
		actions = append(actions, h.Action)
	}
	if strings.Join(actions, ",") != "created,linked,updated" {
		t.Fatalf("history actions %v", actions)
	}
	if out := ok("record", "show", fb); !strings.Contains(out, "We need SSO") || !strings.Contains(out, idea) {
		t.Fatalf("record show text:\n%s", out)
	}

	ok("record", "merge", other, "--into", idea)
	ok("record", "unlink", fb, idea)
	ok("record", "delete", fb)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"record", "show", fb}, 1},
		{[]string{"record", "update", idea}, 2},
		{[]string{"record", "update", idea, "--status", "Released"}, 1},
		{[]string{"record", "update", other, "--title", "x"}, 1},
		{[]string{"record", "merge", idea}, 2},
		{[]string{"record", "unlink", fb, idea}, 1},
		{[]string{"record", "show", "nope"}, 2},
	} {
		if code, _, errOut := run(t, cfg, c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errOut)
		}
	}
}
