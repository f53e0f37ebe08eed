package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: Kind, Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "crm", "workspace": string(ws), "secret": "s3cret",
			"mapping": map[string]any{"title": "title", "external_id": "id"}}
	}, Feed: func(t testing.TB, ws core.ID, dir string) connectortest.Feed {
		e := plainEntry("crm")
		e["workspace"] = string(ws)
		e["mapping"].(map[string]any)["customer_name"] = "name"
		return connectortest.Feed{Entry: e, Source: "Other", Deliver: deliverItems, Bad: deliverBad}
	}})
}

// deliverItems posts each item as one signed JSON delivery, the way a CRM's webhook would; a resend is
// the same body again.
func deliverItems(t testing.TB, l *connectortest.Live, items []connectortest.Item, attempt int) []connectortest.Answer {
	out := make([]connectortest.Answer, len(items))
	for i, it := range items {
		body, err := json.Marshal(map[string]string{"id": it.ExternalID, "title": it.Title, "body": it.Description,
			"email": it.Email, "name": it.Name})
		if err != nil {
			t.Error(err)
		}
		out[i] = deliver(l, body)
	}
	return out
}

// deliverBad sends a signed body that is not JSON between two good deliveries: it is answered 400.
func deliverBad(t testing.TB, l *connectortest.Live, good []connectortest.Item) func() string {
	deliverItems(t, l, good[:1], 0)
	bad := deliver(l, []byte(`{"id": "broken", "title": "Half a payl`))
	deliverItems(t, l, good[1:], 0)
	return func() string {
		if bad.Saved || !strings.HasPrefix(bad.Text, "400 ") {
			return ""
		}
		return bad.Text
	}
}

// deliver posts one signed JSON body to the entry; 201 is the acknowledgment.
func deliver(l *connectortest.Live, body []byte) connectortest.Answer {
	hdr := hexSig("s3cret", body)
	hdr.Set("Content-Type", "application/json")
	status, text := connectortest.Post(l, "/hooks/crm", hdr, body)
	return connectortest.Answer{Saved: status == http.StatusCreated, Text: fmt.Sprintf("%d %s", status, text)}
}
