package csvimport

import (
	"context"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// TestDescriptionIsPlainText: a cell is typed text, as an email body or a Slack message is, so an address in
// angle brackets and an ampersand stay as typed.
func TestDescriptionIsPlainText(t *testing.T) {
	e := newTestEnv(t)
	in := e.write(t, "plain.csv", "title,description\nMail me,write to <jane@acme.com> please\nAmpersand,R&D needs <jane@acme.com> & co\n")
	if _, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range e.records(t, core.RecordFeedback) {
		got[r.Title] = r.Description
	}
	if got["Mail me"] != "write to <jane@acme.com> please" {
		t.Errorf("address lost: %q", got["Mail me"])
	}
	if d := got["Ampersand"]; d != "R&D needs <jane@acme.com> & co" {
		t.Errorf("typed text parsed as markup: %q", d)
	}
}
