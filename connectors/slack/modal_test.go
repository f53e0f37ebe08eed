package slack

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// viewSubmission is the /idea form submitted by U0PAT with the given state values.
func viewSubmission(team, viewID string, values map[string]any) url.Values {
	return payload(map[string]any{
		"type": "view_submission", "token": "legacy", "api_app_id": "A0APP", "trigger_id": "1337.43.efgh",
		"team": map[string]any{"id": team, "domain": "acme"}, "user": map[string]any{"id": "U0PAT", "name": "pat"},
		"view": map[string]any{"id": viewID, "team_id": team, "type": "modal", "callback_id": "feedbridge_idea",
			"private_metadata": "C0CHAN", "hash": "1700000000.abc", "state": map[string]any{"values": values}},
	})
}

func input(v string) map[string]any {
	return map[string]any{"value": map[string]any{"type": "plain_text_input", "value": v}}
}

func selected(ids ...core.ID) map[string]any {
	if len(ids) == 1 {
		return map[string]any{"value": map[string]any{"type": "static_select", "selected_option": map[string]any{"value": string(ids[0])}}}
	}
	var opts []map[string]any
	for _, id := range ids {
		opts = append(opts, map[string]any{"value": string(id)})
	}
	return map[string]any{"value": map[string]any{"type": "multi_static_select", "selected_options": opts}}
}

// modalHarness has a workspace with products, tags and users, served with a bot token.
func modalHarness(t *testing.T, ideaLimit int) (*harness, core.ID, map[string]core.ID) {
	h := newHarness(t)
	ws := h.workspace("Acme", ideaLimit)
	ids := map[string]core.ID{}
	for kind, labels := range map[core.LookupKind][]string{core.LookupProduct: {"Web", "Mobile"}, core.LookupTag: {"ux", "billing"}} {
		ls, err := h.svc.AddLookups(h.ctx, ws, kind, labels)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			ids[l.Label] = l.ID
		}
	}
	for _, name := range []string{"Bob", "Ann"} {
		u, err := h.svc.AddUser(h.ctx, ws, name, "")
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = u.ID
	}
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one", "bot_token", "xoxb-bot")}, nil)
	return h, ws, ids
}

func TestIdeaWithoutTextOpensModal(t *testing.T) {
	h, _, ids := modalHarness(t, -1)
	form := h.commandForm("T0ACME", "/idea", "")
	status, body := h.post("/slack/commands", "s3cret-one", form, nil)
	if status != http.StatusOK || len(body) != 0 {
		t.Fatalf("answer %d %q, want 200 and no body", status, body)
	}
	calls := h.stub.wait(t, "/api/views.open", 1)
	if calls[0].Auth != "Bearer xoxb-bot" || calls[0].JSON["trigger_id"] != form.Get("trigger_id") {
		t.Errorf("views.open auth %q trigger %v", calls[0].Auth, calls[0].JSON["trigger_id"])
	}
	raw, _ := json.Marshal(calls[0].JSON["view"])
	var view struct {
		Type            string `json:"type"`
		CallbackID      string `json:"callback_id"`
		PrivateMetadata string `json:"private_metadata"`
		Title, Submit   struct{ Text string }
		Close           struct{ Text string }
		Blocks          []struct {
			Type     string `json:"type"`
			BlockID  string `json:"block_id"`
			Optional bool   `json:"optional"`
			Label    struct{ Text string }
			Element  struct {
				Type      string `json:"type"`
				ActionID  string `json:"action_id"`
				Multiline bool   `json:"multiline"`
				MaxLength int    `json:"max_length"`
				Options   []struct {
					Value string `json:"value"`
					Text  struct{ Text string }
				} `json:"options"`
			} `json:"element"`
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&view); err != nil {
		t.Fatal(err)
	}
	if view.Type != "modal" || view.CallbackID != callbackIdeaModal || view.PrivateMetadata != "C0CHAN" ||
		view.Title.Text != "New idea" || view.Submit.Text != "Save" || view.Close.Text != "Cancel" {
		t.Errorf("view %s", raw)
	}
	type block struct {
		id, label, element string
		optional           bool
		options            []string
	}
	want := []block{
		{"title", "Title", "plain_text_input", false, nil},
		{"description", "Description", "plain_text_input", true, nil},
		{"product", "Product", "static_select", true, []string{string(ids["Mobile"]) + "=Mobile", string(ids["Web"]) + "=Web"}},
		{"tags", "Tags", "multi_static_select", true, []string{string(ids["billing"]) + "=billing", string(ids["ux"]) + "=ux"}},
		{"assignee", "Assignee", "static_select", true, []string{string(ids["Ann"]) + "=Ann", string(ids["Bob"]) + "=Bob"}},
	}
	var got []block
	for _, b := range view.Blocks {
		if b.Type != "input" || b.Element.ActionID != actionValue {
			t.Errorf("block %s: type %s action %s", b.BlockID, b.Type, b.Element.ActionID)
		}
		g := block{b.BlockID, b.Label.Text, b.Element.Type, b.Optional, nil}
		for _, o := range b.Element.Options {
			g.options = append(g.options, o.Value+"="+o.Text.Text)
		}
		got = append(got, g)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("blocks\n got %+v\nwant %+v", got, want)
	}
	if b := view.Blocks[1].Element; !b.Multiline || b.MaxLength != 3000 || view.Blocks[0].Element.MaxLength != 500 {
		t.Errorf("input limits: %s", raw)
	}
}

func TestIdeaModalCannotOpen(t *testing.T) {
	h, ws, _ := modalHarness(t, -1)
	h.stub.reply("/api/views.open", stubReply{200, `{"ok":false,"error":"expired_trigger_id"}`})
	answer := h.command("s3cret-one", "T0ACME", "/idea", "")
	if !strings.HasPrefix(answer, "The idea form could not be opened just now; type the idea instead.\n`/idea` files an idea") {
		t.Errorf("answer %q", answer)
	}
	if n := h.count(ws, core.RecordIdea); n != 0 {
		t.Errorf("%d ideas", n)
	}
}

func TestIdeaModalSubmission(t *testing.T) {
	h, ws, ids := modalHarness(t, 2)
	values := map[string]any{
		"title": input("Dark mode <b>"), "description": input("For night & owls\nand &lt; literal"),
		"product": selected(ids["Mobile"]), "tags": selected(ids["ux"], ids["billing"]), "assignee": selected(ids["Ann"]),
	}
	var resp struct {
		ResponseAction string            `json:"response_action"`
		Errors         map[string]string `json:"errors"`
		View           struct {
			Blocks []struct{ Text struct{ Type, Text string } }
		} `json:"view"`
	}
	submit := func(viewID string, values map[string]any) {
		t.Helper()
		resp.Errors, resp.View.Blocks = nil, nil
		status, body := h.post("/slack/interactions", "s3cret-one", viewSubmission("T0ACME", viewID, values), nil)
		if status != 200 {
			t.Fatalf("status %d %s", status, body)
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
	submit("V0VIEW1", values)
	if resp.ResponseAction != "update" || len(resp.View.Blocks) != 1 || resp.View.Blocks[0].Text.Type != "mrkdwn" {
		t.Fatalf("response %+v", resp)
	}
	text := resp.View.Blocks[0].Text.Text
	if !strings.HasPrefix(text, "Saved Idea “Dark mode &lt;b&gt;” with no customer · id `") {
		t.Errorf("confirmation %q", text)
	}
	rec := h.recordIn(ws, text)
	if rec.Title != "Dark mode <b>" || rec.Description != "For night & owls\nand &lt; literal" || rec.Product != "Mobile" ||
		!reflect.DeepEqual(rec.Tags, []string{"ux", "billing"}) || rec.Assignee != "Ann" || rec.Source != "Slack" || rec.Type != core.RecordIdea {
		t.Errorf("record %+v", rec)
	}

	submit("V0VIEW1", values) // Slack retrying the same submission
	if !strings.HasPrefix(resp.View.Blocks[0].Text.Text, "Already saved Idea") || h.count(ws, core.RecordIdea) != 1 {
		t.Errorf("repeat: %q, %d ideas", resp.View.Blocks[0].Text.Text, h.count(ws, core.RecordIdea))
	}

	unknown := core.NewID()
	submit("V0VIEW2", map[string]any{"title": input("Other"), "product": selected(unknown)})
	if resp.ResponseAction != "errors" || !strings.Contains(resp.Errors["product"], string(unknown)) || len(resp.Errors) != 1 {
		t.Errorf("unknown product: %+v", resp)
	}
	submit("V0VIEW3", map[string]any{"title": input(strings.Repeat("é", 501))})
	if resp.ResponseAction != "errors" || resp.Errors["title"] != "The title has 501 characters; the limit is 500." {
		t.Errorf("long title: %+v", resp)
	}

	submit("V0VIEW4", map[string]any{"title": input("Second idea")})
	submit("V0VIEW5", map[string]any{"title": input("Third idea")})
	if resp.ResponseAction != "update" || !strings.Contains(resp.View.Blocks[0].Text.Text, "idea limit (2 of 2 on the pro plan)") {
		t.Errorf("over the limit: %+v", resp)
	}
	if n := h.count(ws, core.RecordIdea); n != 2 {
		t.Errorf("%d ideas, want 2", n)
	}
}
