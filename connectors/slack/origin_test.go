package slack

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestIntakeKeepsWhoToTell: what Slack submissions keep lets closing the loop answer their people — the
// one who ran /idea by DM, the one who saved a message in that message's thread (the thread it is in).
func TestIntakeKeepsWhoToTell(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one", "bot_token", "xoxb-bot")}, nil)
	h.stub.reply("/api/users.info", stubReply{200, userNoEmail})
	h.svc.SetNotify(&core.NotifyPolicy{Statuses: []string{"Planned"}, SlackEntries: map[string]bool{"acme-slack": true}})

	form := h.commandForm("T0ACME", "/idea", "Dark mode")
	form.Set("user_id", "U0ANN")
	status, body := h.post("/slack/commands", "s3cret-one", form, nil)
	if status != http.StatusOK {
		t.Fatalf("/idea: %d", status)
	}
	idea := h.recordIn(ws, ephemeralText(t, body))
	status, _ = h.post("/slack/interactions", "s3cret-one", h.shortcut("T0ACME", "U0AUTHOR", "1700000000.000200", "1699999999.000100", "Too bright"), nil)
	if status != http.StatusOK {
		t.Fatalf("shortcut: %d", status)
	}
	saved := h.recordIn(ws, h.stub.wait(t, "/api/chat.postEphemeral", 1)[0].Form.Get("text"))
	if _, err := h.svc.Link(h.ctx, ws, saved.ID, idea.ID, nil); err != nil {
		t.Fatal(err)
	}
	planned := "Planned"
	if _, err := h.svc.Update(h.ctx, ws, idea.ID, core.Patch{Status: &planned}, ""); err != nil {
		t.Fatal(err)
	}
	its, err := h.store.ClaimItems(h.ctx, core.NotifyQueueSlack, "t", 10, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]core.Notice{}
	for _, it := range its {
		var n core.Notice
		if err := json.Unmarshal(it.Body, &n); err != nil {
			t.Fatal(err)
		}
		got[n.Chat+"/"+n.Thread] = core.Notice{Entry: n.Entry, User: n.User, Chat: n.Chat, Thread: n.Thread}
	}
	want := map[string]core.Notice{
		"/":                        {Entry: "acme-slack", User: "U0ANN"},
		"C0CHAN/1699999999.000100": {Entry: "acme-slack", User: "U0PAT", Chat: "C0CHAN", Thread: "1699999999.000100"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %+v, want %+v", got, want)
	}
}
