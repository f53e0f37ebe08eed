package slack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: "slack", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "acme-slack", "workspace": string(ws), "signing_secret": "s3cret"}
	}, Feed: func(t testing.TB, ws core.ID, dir string) connectortest.Feed {
		return connectortest.Feed{Entry: map[string]any{"name": "acme-slack", "workspace": string(ws), "signing_secret": "s3cret"},
			Source: "Slack", Deliver: sendCommands, Bad: sendBadCommand}
	}})
}

// sendCommands types each item as a /feedback command: "<customer> <title> | <description>". Slack
// resends a command it got no answer for with the same trigger_id and X-Slack-Retry-Num; so does a resend
// here.
func sendCommands(t testing.TB, l *connectortest.Live, items []connectortest.Item, attempt int) []connectortest.Answer {
	out := make([]connectortest.Answer, len(items))
	for i, it := range items {
		out[i] = sendCommand(l, it.ExternalID, it.Email+" "+it.Title+" | "+it.Description, attempt)
	}
	return out
}

// sendBadCommand sends a command that names a customer but no title between two good ones: the user is
// told what is missing.
func sendBadCommand(t testing.TB, l *connectortest.Live, good []connectortest.Item) func() string {
	sendCommands(t, l, good[:1], 0)
	bad := sendCommand(l, "no-title", good[0].Email, 0)
	sendCommands(t, l, good[1:], 0)
	return func() string {
		if bad.Saved || !strings.Contains(bad.Text, "Add a title") {
			return ""
		}
		return bad.Text
	}
}

// sendCommand posts one signed slash command; an answer naming a record id acknowledges it.
func sendCommand(l *connectortest.Live, trigger, text string, attempt int) connectortest.Answer {
	form := url.Values{
		"team_id": {"T0CONF"}, "team_domain": {"acme"}, "channel_id": {"C0CHAN"}, "channel_name": {"product"},
		"user_id": {"U0PAT"}, "user_name": {"pat"}, "command": {"/feedback"}, "text": {text}, "api_app_id": {"A0APP"},
		"response_url": {"https://hooks.slack.com/commands/T0CONF/1/conformance"}, "trigger_id": {"conf." + trigger},
	}
	body := form.Encode()
	hdr := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	signHeaders(hdr, "s3cret", time.Now(), body)
	if attempt > 0 {
		hdr.Set("X-Slack-Retry-Num", fmt.Sprint(attempt))
	}
	status, answer := connectortest.Post(l, "/slack/commands", hdr, []byte(body))
	var m struct {
		Text string `json:"text"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(answer), &m) != nil {
		return connectortest.Answer{Text: fmt.Sprintf("%d %s", status, answer)}
	}
	return connectortest.Answer{Saved: idPattern.MatchString(m.Text), Text: m.Text}
}
