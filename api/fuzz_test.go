package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// The parsers of outside input: the create bodies and GET /records' query string. They must never panic,
// must refuse with a 400 of the error shape, and what they accept must survive a round trip.

var bodySeeds = []string{
	`{"title":"x"}`, `{"title":"x","description":"<p>a</p>","customer_email":"a@b.com","customer_name":"A","source":"api"}`,
	`{"title":"x","record_type":"Feedback","tags":["6b02aa68e620474649935e43"],"product":"","user":null}`,
	`{}`, `null`, `[]`, `"x"`, `{"title":5}`, `{"Title":"x"}`, `{"title":"x"} {}`, `{"title":"\u00e9\ud800"}`,
	`{"tags":[1,2]}`, `{"title":"x","title":"y"}`, `{"title":"x",}`, ``, `{"a":{"b":[{"c":null}]}}`, "{\"title\":\"x\"}\n\t ",
}

// checkRefusal fails unless err is a 400 of the error shape.
func checkRefusal(t *testing.T, err error) {
	var ae *apiError
	if !errors.As(err, &ae) || ae.status != http.StatusBadRequest || ae.code == "" || ae.message == "" {
		t.Fatalf("refusal %v is not a 400 apiError", err)
	}
	if status, body := classify(err); status != 400 || body.Error != ae.code {
		t.Fatalf("classified as %d %v", status, body)
	}
}

func FuzzDecodeFeedback(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := decodeFeedback(body)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		again, err := json.Marshal(map[string]string{"title": b.Title, "description": b.Description,
			"customer_email": b.CustomerEmail, "customer_name": b.CustomerName, "source": b.Source})
		if err != nil {
			t.Fatal(err)
		}
		b2, err := decodeFeedback(again)
		if err != nil || b2 != b {
			t.Fatalf("round trip: %+v → %s → %+v, %v", b, again, b2, err)
		}
	})
}

func FuzzDecodeIdea(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := decodeIdea(body)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		if _, err := ideaType(b.RecordType); err != nil {
			checkRefusal(t, err)
		}
		again, err := json.Marshal(map[string]any{"title": b.Title, "description": b.Description, "record_type": b.RecordType,
			"product": b.Product, "user": b.User, "tags": b.Tags, "source": b.Source,
			"customer_email": b.CustomerEmail, "customer_name": b.CustomerName})
		if err != nil {
			t.Fatal(err)
		}
		b2, err := decodeIdea(again)
		if len(b.Tags) == 0 {
			b.Tags, b2.Tags = nil, nil // absent, null and [] all mean no tags
		}
		if err != nil || !reflect.DeepEqual(b, b2) {
			t.Fatalf("round trip: %+v → %s → %+v, %v", b, again, b2, err)
		}
	})
}

func FuzzListQuery(f *testing.F) {
	for _, s := range []string{
		"", "record_type=Feedback&search=caf%C3%A9&sort=asc&limit=10", "tags=a&tags=b", "limit=5&limit=6",
		"foo=1", "search=%zz", "a=1;b=2", "created_from=2026-01-01&created_to=2026-01-31T23:59:59%2B02:00",
		"cursor=AAAA&record_type=objective&product=6b02aa68e620474649935e43", "&&=&", "search=%00%ff",
		"updated_since=2026-02-30", "limit=1000", "limit=-0", "sort=ASC&record_type=IDEA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		req, vals, err := parseListQuery(raw)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		for k := range vals {
			if _, ok := listParams[k]; !ok {
				t.Fatalf("accepted unknown parameter %q", k)
			}
		}
		q, err := core.ParseListRequest(req)
		if err != nil {
			var ve *core.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("core refused with %T %v", err, err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > core.MaxPageSize {
			t.Fatalf("limit %d accepted", q.Limit)
		}
		// The next-page link carries the same query: parsing it gives the same request plus the cursor.
		link := nextLink("/api/records", vals, "CURSOR")
		target := strings.TrimSuffix(strings.TrimPrefix(link, "</api/records?"), `>; rel="next"`)
		req2, _, err := parseListQuery(target)
		if err != nil {
			t.Fatalf("own link %q refused: %v", link, err)
		}
		req.Cursor = "CURSOR"
		if len(req.Tags) == 0 {
			req.Tags, req2.Tags = nil, nil
		}
		if !reflect.DeepEqual(req, req2) {
			t.Fatalf("link changed the query:\n%+v\n%+v", req, req2)
		}
		if _, err := url.ParseQuery(target); err != nil {
			t.Fatal(err)
		}
	})
}
