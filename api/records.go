package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// handlers are the endpoints; each reads the request, calls the service once and renders the answer.
type handlers struct {
	svc         *core.Service
	now         func() time.Time
	signalCache *signalCache
	configured  func(ws core.ID, kind, name string) bool // see Options.Configured
	subscribers func(ctx context.Context, ws core.ID) ([]core.SubscriberStatus, error)
}

func (h *handlers) verify(w http.ResponseWriter, r *http.Request) {
	if _, err := parseQuery(r.URL.RawQuery, nil); err != nil {
		writeError(w, r, err)
		return
	}
	ws := workspaceFrom(r.Context())
	writeJSON(w, http.StatusOK, verifyView{
		Success: true, ID: ws.ID, CompanyName: ws.Name, Message: "API key is valid for workspace " + ws.Name,
	})
}

// feedbackBody is POST /records/feedback's body.
type feedbackBody struct {
	Title, Description, CustomerEmail, CustomerName, Source string
}

func decodeFeedback(body []byte) (feedbackBody, error) {
	var b feedbackBody
	err := decodeObject(body,
		bodyField{"title", &b.Title}, bodyField{"description", &b.Description},
		bodyField{"customer_email", &b.CustomerEmail}, bodyField{"customer_name", &b.CustomerName},
		bodyField{"source", &b.Source})
	return b, err
}

func (h *handlers) createFeedback() http.HandlerFunc {
	return h.create("POST /api/records/feedback", func(raw []byte) (core.Submission, error) {
		b, err := decodeFeedback(raw)
		return core.Submission{
			Type: core.RecordFeedback, Title: b.Title, Description: b.Description, CustomerEmail: b.CustomerEmail,
			CustomerName: b.CustomerName, Source: b.Source,
		}, err
	}, func(rec core.Record) any { return newFeedbackView(rec) })
}

// create serves a create endpoint: the body read and turned into a submission by decode, the
// Idempotency-Key fingerprinted over the endpoint and the exact body, and the new record shown by view.
func (h *handlers) create(endpoint string, decode func(raw []byte) (core.Submission, error), view func(core.Record) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, err := readBody(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		sub, err := decode(raw)
		if err == nil {
			sub.Idempotency, err = idempotency(r, endpoint, raw)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		res, err := h.svc.Submit(r.Context(), workspaceFrom(r.Context()).ID, sub)
		if err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("ETag", core.ETag(res.Record))
		writeJSON(w, http.StatusCreated, view(res.Record))
	}
}

// ideaBody is POST /records/idea's body.
type ideaBody struct {
	Title, Description, RecordType, Product, User, Source, CustomerEmail, CustomerName string
	Tags                                                                               []string
}

func decodeIdea(body []byte) (ideaBody, error) {
	var b ideaBody
	err := decodeObject(body,
		bodyField{"title", &b.Title}, bodyField{"description", &b.Description},
		bodyField{"record_type", &b.RecordType}, bodyField{"product", &b.Product}, bodyField{"user", &b.User},
		bodyField{"tags", &b.Tags}, bodyField{"source", &b.Source},
		bodyField{"customer_email", &b.CustomerEmail}, bodyField{"customer_name", &b.CustomerName})
	return b, err
}

// ideaType is Idea by default; the endpoint makes only Ideas and Feedback.
func ideaType(s string) (core.RecordType, error) {
	if strings.TrimSpace(s) == "" {
		return core.RecordIdea, nil
	}
	t, ok := core.ParseRecordType(s)
	if !ok || (t != core.RecordIdea && t != core.RecordFeedback) {
		return "", badRequest("invalid record_type", "record_type must be Idea or Feedback.")
	}
	return t, nil
}

func (h *handlers) createIdea() http.HandlerFunc {
	return h.create("POST /api/records/idea", func(raw []byte) (core.Submission, error) {
		b, err := decodeIdea(raw)
		if err != nil {
			return core.Submission{}, err
		}
		t, err := ideaType(b.RecordType)
		tags := make([]core.ID, len(b.Tags))
		for i, t := range b.Tags {
			tags[i] = core.ID(t)
		}
		return core.Submission{
			Type: t, Title: b.Title, Description: b.Description, CustomerEmail: b.CustomerEmail,
			CustomerName: b.CustomerName, Source: b.Source, ProductID: core.ID(b.Product), AssigneeID: core.ID(b.User),
			TagIDs: tags, CountsAgainstLimit: true,
		}, err
	}, func(rec core.Record) any { return newRecordView(rec) })
}

// idempotency reads the Idempotency-Key header. The fingerprint covers the endpoint and the exact body, so
// the same key with another body (or on the other create endpoint) is a conflict.
func idempotency(r *http.Request, endpoint string, body []byte) (*core.Idempotency, error) {
	vs := r.Header.Values("Idempotency-Key")
	if len(vs) == 0 {
		return nil, nil
	}
	key := strings.TrimSpace(vs[0])
	if len(vs) > 1 || key == "" || len(key) > 255 || !printableASCII(key) {
		return nil, badRequest("invalid idempotency key", "Idempotency-Key must be one value of 1 to 255 printable ASCII characters.")
	}
	sum := sha256.New()
	sum.Write([]byte(endpoint))
	sum.Write([]byte{0})
	sum.Write(body)
	return &core.Idempotency{Key: key, Fingerprint: hex.EncodeToString(sum.Sum(nil))}, nil
}

func (h *handlers) listRecords(w http.ResponseWriter, r *http.Request) {
	req, vals, err := parseListQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := h.svc.List(r.Context(), workspaceFrom(r.Context()).ID, req)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if page.Next != "" {
		w.Header().Set("Link", nextLink(r.URL.Path, vals, page.Next))
		w.Header().Set("X-Next-Cursor", page.Next)
	}
	writeJSON(w, http.StatusOK, recordViews(page.Records))
}

// pathID reads the {id} wildcard; anything but 24 lowercase hex characters is 400.
func pathID(r *http.Request) (core.ID, error) {
	v := r.PathValue("id")
	id, err := core.ParseID(v)
	if err != nil {
		return "", badRequest("invalid id", "The id in the path must be 24 lowercase hex characters.")
	}
	return id, nil
}

// byID serves GET …/{id}: the id from the path, no query parameters, and the workspace's object shown
// through view; an id of another workspace is as unknown as one that never existed.
func byID[T, V any](what string, get func(ctx context.Context, ws, id core.ID) (T, error), view func(T) V) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err == nil {
			_, err = parseQuery(r.URL.RawQuery, nil)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		v, err := get(r.Context(), workspaceFrom(r.Context()).ID, id)
		if err != nil {
			writeError(w, r, notFound(err, what, string(id)))
			return
		}
		writeJSON(w, http.StatusOK, view(v))
	}
}

func (h *handlers) record() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err == nil {
			_, err = parseQuery(r.URL.RawQuery, nil)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		rec, err := h.svc.Record(r.Context(), workspaceFrom(r.Context()).ID, id)
		if err != nil {
			writeError(w, r, notFound(err, "record", string(id)))
			return
		}
		writeRecord(w, http.StatusOK, rec)
	}
}

// writeRecord answers with one record and its ETag.
func writeRecord(w http.ResponseWriter, status int, rec core.Record) {
	w.Header().Set("ETag", core.ETag(rec))
	writeJSON(w, status, newRecordView(rec))
}

func (h *handlers) recordInsights() http.HandlerFunc {
	return byID("record", h.svc.Insights, func(ins []core.Insight) []insightView {
		out := make([]insightView, len(ins))
		for i, in := range ins {
			out[i] = newInsightView(in)
		}
		return out
	})
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
