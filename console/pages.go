package console

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// inboxPageSize is how many rows the inbox shows at once.
const inboxPageSize = 50

type inboxData struct {
	Search  string
	Records []core.Record
	Next    string // the query of the following page, "" on the last
}

// inbox lists Feedback in Triage, newest first, with search; older pages follow by cursor.
func (s *Server) inbox(w http.ResponseWriter, r *http.Request, m *core.Member) {
	q := r.URL.Query()
	search := strings.TrimSpace(q.Get("search"))
	v := view{Title: "Inbox", Nav: "inbox", Member: m}
	page, err := s.svc.List(r.Context(), m.Workspace, core.ListRequest{RecordType: string(core.RecordFeedback), Search: search,
		Limit: strconv.Itoa(inboxPageSize), Cursor: q.Get("cursor")})
	var ve *core.ValidationError
	if errors.As(err, &ve) {
		v.Error, v.Data = ve.Message, inboxData{Search: search}
		s.render(w, r, http.StatusBadRequest, "inbox", v)
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := inboxData{Search: search, Records: make([]core.Record, 0, len(page.Records))}
	for _, rec := range page.Records {
		if rec.Status == core.StatusTriage {
			d.Records = append(d.Records, rec)
		}
	}
	if page.Next != "" {
		next := url.Values{"cursor": {page.Next}}
		if search != "" {
			next.Set("search", search)
		}
		d.Next = next.Encode()
	}
	v.Data = d
	s.render(w, r, http.StatusOK, "inbox", v)
}

// connectors shows the state of each connector entry of the workspace.
func (s *Server) connectors(w http.ResponseWriter, r *http.Request, m *core.Member) {
	sts, err := s.svc.Connectors(r.Context(), m.Workspace)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "connectors", view{Title: "Connectors", Nav: "connectors", Member: m, Data: sts})
}
