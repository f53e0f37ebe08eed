package api

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// handlers are the endpoints; each reads the request, calls the service once and renders the answer.
type handlers struct {
	svc *core.Service
	now func() time.Time
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

func (h *handlers) createFeedback(w http.ResponseWriter, r *http.Request) {
	raw, err := readBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, err := decodeFeedback(raw)
	if err != nil {
		writeError(w, r, err)
		return
	}
	idem, err := idempotency(r, "POST /api/records/feedback", raw)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.svc.Submit(r.Context(), workspaceFrom(r.Context()).ID, core.Submission{
		Type: core.RecordFeedback, Title: b.Title, Description: b.Description, CustomerEmail: b.CustomerEmail,
		CustomerName: b.CustomerName, Source: b.Source, Idempotency: idem,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, newFeedbackView(res.Record))
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

func (h *handlers) createIdea(w http.ResponseWriter, r *http.Request) {
	raw, err := readBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, err := decodeIdea(raw)
	if err != nil {
		writeError(w, r, err)
		return
	}
	t, err := ideaType(b.RecordType)
	if err != nil {
		writeError(w, r, err)
		return
	}
	idem, err := idempotency(r, "POST /api/records/idea", raw)
	if err != nil {
		writeError(w, r, err)
		return
	}
	tags := make([]core.ID, len(b.Tags))
	for i, t := range b.Tags {
		tags[i] = core.ID(t)
	}
	res, err := h.svc.Submit(r.Context(), workspaceFrom(r.Context()).ID, core.Submission{
		Type: t, Title: b.Title, Description: b.Description, CustomerEmail: b.CustomerEmail,
		CustomerName: b.CustomerName, Source: b.Source, ProductID: core.ID(b.Product), AssigneeID: core.ID(b.User),
		TagIDs: tags, CountsAgainstLimit: true, Idempotency: idem,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, newRecordView(res.Record))
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

func (h *handlers) record(w http.ResponseWriter, r *http.Request) {
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
	writeJSON(w, http.StatusOK, newRecordView(rec))
}

func (h *handlers) recordInsights(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		_, err = parseQuery(r.URL.RawQuery, nil)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	ins, err := h.svc.Insights(r.Context(), workspaceFrom(r.Context()).ID, id)
	if err != nil {
		writeError(w, r, notFound(err, "record", string(id)))
		return
	}
	out := make([]insightView, len(ins))
	for i, in := range ins {
		out[i] = newInsightView(in)
	}
	writeJSON(w, http.StatusOK, out)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
