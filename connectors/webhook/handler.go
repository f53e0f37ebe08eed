package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// serve answers POST /hooks/{name}: 201 with the records (created or already there), 202 with a delivery
// id when the delivery is queued (see queue.go: more than queue_over items, or records not written within
// queue_after), 401 when the signature or token fails, 400 for a payload the mapping cannot read, 413 over
// max_body, 415 for a body that is not JSON, 403 when the workspace is suspended, 429 for an address that
// has failed authentication too often (connectors.Guard) and 503 when too many unauthenticated bodies are
// being read. A bearer token is checked before the body is read, a signature's headers before it and the
// signature itself before it is parsed; the mapping is checked before a delivery is queued, and a refused
// delivery writes nothing.
func (s *Set) serve(w http.ResponseWriter, r *http.Request) {
	en := s.table.Load().byName[r.PathValue("name")]
	if en == nil {
		s.requests.WithLabelValues("", "unknown").Inc()
		answer(w, http.StatusNotFound, "not found", "No webhook is configured under this name.")
		return
	}
	outcome := func(o string) { s.outcome(en, o) }
	addr := connectors.ClientAddr(r)
	if limited, retry := s.guard.Limited(addr); limited {
		outcome("limited")
		s.refused(en, addr, errTooManyFailures)
		connectors.TooManyFailures(w, retry)
		return
	}
	if r.ContentLength > en.MaxBody {
		outcome("too_large")
		answer(w, http.StatusRequestEntityTooLarge, "body too large", "The body is larger than this webhook accepts.")
		return
	}
	claim, err := en.checkHeaders(r.Header, s.now())
	if err != nil {
		s.unauthorized(w, en, addr, err)
		return
	}
	var body []byte
	if en.bodySigned() {
		// Nobody is known yet: the read holds part of the guard's budget.
		body, err = s.guard.ReadBody(w, r, en.MaxBody)
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, en.MaxBody))
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.Is(err, connectors.ErrBusy):
			outcome("busy")
			connectors.Busy(w)
		case errors.As(err, &tooLarge):
			outcome("too_large")
			answer(w, http.StatusRequestEntityTooLarge, "body too large", "The body is larger than this webhook accepts.")
		default:
			outcome("bad_request")
			answer(w, http.StatusBadRequest, "unreadable body", "The request body could not be read.")
		}
		return
	}
	if err := en.checkBody(claim, body); err != nil {
		s.unauthorized(w, en, addr, err)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		outcome("bad_request")
		s.board.Refused(en.Name, "a payload that is not JSON")
		answer(w, http.StatusUnsupportedMediaType, "unsupported media type", "Send the payload as application/json.")
		return
	}
	recs, err := en.extract(body)
	if err != nil {
		outcome("bad_request")
		en.log.WithError(err).Info("webhook: payload refused")
		s.board.Refused(en.Name, "a payload the mapping does not fit: "+err.Error())
		answer(w, http.StatusBadRequest, err.Error(), "The payload does not hold what this webhook's mapping expects.")
		return
	}
	if len(recs) > en.QueueOver {
		if err := s.check(submissions(recs)); err != nil {
			s.refuse(w, en, err, "the delivery could not be checked")
			return
		}
		s.enqueue(w, r, en, body, len(recs))
		return
	}
	wctx, cancel := context.WithTimeout(r.Context(), en.QueueAfter)
	results, err := s.submit(core.WithActor(wctx, core.Actor{Kind: core.ActorConnector, Name: en.Name}), en.ws, recs)
	late := errors.Is(wctx.Err(), context.DeadlineExceeded)
	cancel()
	switch {
	case err != nil && late && !refusedForGood(err) && r.Context().Err() == nil:
		// The store is slow: keep the delivery rather than keep the sender waiting. Whatever of the
		// write went through is found by its dedup keys when the worker writes it.
		s.enqueue(w, r, en, body, len(recs))
	case err != nil:
		s.refuse(w, en, err, "the record could not be saved")
	default:
		outcome("created")
		s.board.Succeeded(en.Name)
		s.svc.CountConnector(en.ws, en.Name, results.fresh(), 0)
		logUnknownTags(en, results)
		writeJSON(w, http.StatusCreated, results)
	}
}

// unauthorized answers a request that failed authentication: 401, one failure spent from the address's
// budget, a refusal on the entry's board, a sampled log line. A secret that could not be read is
// feedbridge's fault instead: 500.
func (s *Set) unauthorized(w http.ResponseWriter, en *entry, addr string, err error) {
	var se *secretError
	if errors.As(err, &se) {
		s.fail(w, en, err, "the entry's secret could not be read")
		return
	}
	s.requests.WithLabelValues(en.Name, "unauthorized").Inc()
	s.guard.Failed(addr)
	s.refused(en, addr, err)
	connectors.Hangup(w) // the body may be unread
	answer(w, http.StatusUnauthorized, "unauthorized", "The signature or token does not match this webhook.")
}

// turnedAway are the request outcomes that count as refused items on the connectors page; the
// unauthenticated ones are counted by refused, and busy or failed ones are not the sender's doing.
var turnedAway = map[string]bool{"bad_request": true, "too_large": true, "refused": true}

// outcome counts a request's outcome in the metrics, and in today's refusals when it turned the item away.
func (s *Set) outcome(en *entry, o string) {
	s.requests.WithLabelValues(en.Name, o).Inc()
	if turnedAway[o] {
		s.svc.CountConnector(en.ws, en.Name, 0, 1)
	}
}

// refused counts a refusal on the entry's status and logs a sample of them.
func (s *Set) refused(en *entry, addr string, err error) {
	s.board.Refused(en.Name, strings.TrimPrefix(err.Error(), "webhook: "))
	s.svc.CountConnector(en.ws, en.Name, 0, 1)
	s.guard.LogRefusal(en.log, en.Name, logrus.Fields{"remote": addr}, err)
}

// logUnknownTags says, once per delivery, which tag labels matched no tag of the workspace and were left
// off the records (which were created all the same, as a CSV import does).
func logUnknownTags(en *entry, res created) {
	var labels []string
	for _, r := range res.Records {
		for _, l := range r.UnknownTags {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	if len(labels) > 0 {
		en.log.WithField("tags", labels).Warn("webhook: tag labels match no tag of the workspace; left off the records (add them with feedbridge tag add)")
	}
}

// enqueue stores the authenticated, mapped delivery for the entry's worker and answers 202.
func (s *Set) enqueue(w http.ResponseWriter, r *http.Request, en *entry, body []byte, items int) {
	d, err := s.svc.QueueDelivery(r.Context(), en.ws, en.queueKey(), body)
	if err != nil {
		s.refuse(w, en, err, "the delivery could not be queued")
		return
	}
	s.requests.WithLabelValues(en.Name, "queued").Inc()
	en.nudge()
	writeJSON(w, http.StatusAccepted, queued{Success: true, Queued: true, DeliveryID: d.ID, Items: items})
}

// refuse answers a write the service refused with its status; anything else is a 500.
func (s *Set) refuse(w http.ResponseWriter, en *entry, err error, what string) {
	outcome := func(o string) { s.outcome(en, o) }
	var ve *core.ValidationError
	switch {
	case errors.As(err, &ve):
		outcome("bad_request")
		s.board.Refused(en.Name, "a record refused ("+ve.Field+": "+ve.Code+")")
		answer(w, http.StatusBadRequest, err.Error(), ve.Message)
	case errors.Is(err, core.ErrWorkspaceNotFound):
		outcome("refused")
		s.board.Fail(en.Name, connectors.Fault("workspace not found or suspended", err))
		answer(w, http.StatusForbidden, "workspace not found", "The workspace of this webhook is missing or suspended.")
	case errors.Is(err, core.ErrIdeaLimit):
		outcome("refused")
		s.board.Refused(en.Name, "a record refused: the workspace's idea limit is reached")
		answer(w, http.StatusPaymentRequired, "idea limit reached", "The workspace has reached its idea limit.")
	default:
		s.fail(w, en, err, what)
	}
}

// queued is the 202 body: the delivery is kept and its records are written shortly.
type queued struct {
	Success    bool    `json:"success"`
	Queued     bool    `json:"queued"`
	DeliveryID core.ID `json:"delivery_id"`
	Items      int     `json:"items"`
}

// created is the 201 body.
type created struct {
	Success bool         `json:"success"`
	Records []recordSeen `json:"records"`
}

type recordSeen struct {
	ID      core.ID `json:"id"`
	Created bool    `json:"created"` // false: this item was delivered before
	// UnknownTags are the item's tag labels that match no tag of the workspace: the record is created
	// without them, and the answer says so rather than drop them without a word.
	UnknownTags []string `json:"unknown_tags,omitempty"`
}

// submit writes every record of a delivery into ws in one transaction, or none: each is checked first, so
// one bad item refuses the delivery whole and the sender's retry finds nothing half done.
func (s *Set) submit(ctx context.Context, ws core.ID, recs []record) (created, error) {
	subs := submissions(recs)
	out := created{Success: true, Records: make([]recordSeen, len(subs))}
	if slices.ContainsFunc(recs, func(r record) bool { return len(r.tags) > 0 }) {
		tags, err := s.svc.Tags(ctx, ws)
		if err != nil {
			return created{}, err
		}
		m := newTagIndex(tags)
		for i, r := range recs {
			subs[i].TagIDs, out.Records[i].UnknownTags = m.ids(r.tags)
		}
	}
	if len(subs) == 1 {
		res, err := s.svc.Submit(ctx, ws, subs[0])
		if err != nil {
			return created{}, err
		}
		out.Records[0].ID, out.Records[0].Created = res.Record.ID, res.Created
		return out, nil
	}
	if err := s.check(subs); err != nil {
		return created{}, err
	}
	res, err := s.svc.SubmitBatch(ctx, ws, subs)
	if err != nil {
		return created{}, err
	}
	for i, r := range res {
		if r.Err != nil {
			return created{}, r.Err
		}
		out.Records[i].ID, out.Records[i].Created = r.ID, r.Created
	}
	return out, nil
}

// check applies every rule of the service to each submission without writing, so that one bad item
// refuses the delivery whole, before it is written or queued.
func (s *Set) check(subs []core.Submission) error {
	for _, sub := range subs {
		if err := s.svc.Check(sub); err != nil {
			return err
		}
	}
	return nil
}

func submissions(recs []record) []core.Submission {
	subs := make([]core.Submission, len(recs))
	for i, r := range recs {
		subs[i] = r.sub
	}
	return subs
}

// fail answers 500 with an error id that the log line carries too; the cause stays in the log.
func (s *Set) fail(w http.ResponseWriter, en *entry, err error, what string) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	s.requests.WithLabelValues(en.Name, "error").Inc()
	en.log.WithField("error_id", id).WithError(err).Error("webhook: " + what)
	s.board.Fail(en.Name, connectors.Fault(what, err))
	writeJSON(w, http.StatusInternalServerError, map[string]any{"success": false, "error": "internal error",
		"message": "The delivery could not be saved; retry later.", "error_id": id})
}

func answer(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]any{"success": false, "error": code, "message": message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// tagIndex matches tag labels to the workspace's tags ignoring case, spaces, '_', '-' and '.'. A label
// without a tag is left off and named in the answer and the log; the record is still created.
type tagIndex map[string]core.ID

func newTagIndex(tags []core.Lookup) tagIndex {
	m := tagIndex{}
	for _, t := range tags {
		if k := tagKey(t.Label); m[k] == "" {
			m[k] = t.ID
		}
	}
	return m
}

func (m tagIndex) ids(labels []string) (ids []core.ID, unknown []string) {
	for _, l := range labels {
		if id, ok := m[tagKey(l)]; ok {
			ids = append(ids, id)
		} else {
			unknown = append(unknown, l)
		}
	}
	return ids, unknown
}

func tagKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '.':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// fresh is how many of the records were created by this delivery (not found as duplicates).
func (c created) fresh() int {
	n := 0
	for _, r := range c.Records {
		if r.Created {
			n++
		}
	}
	return n
}
