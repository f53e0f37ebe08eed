package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// boardColumn is one status of the board with its most asked-for records.
type boardColumn struct {
	Status  string
	Records []core.Record
	More    string // the query of the whole column as a list, "" when it all shows
}

type ideasData struct {
	Type    core.RecordType
	Types   []core.RecordType
	Status  string // set when one status is listed instead of the board
	Columns []boardColumn
	Records []core.Record // the list of one status
	Next    string
	Title   string // what the New idea form was given, kept when it is refused
	Text    string
}

// Board sizes: a column shows its most asked-for records, a list of one status pages on.
const (
	columnShown = "10"
	listShown   = "50"
)

// ideas shows Ideas or Features by demand: a board by status, or one status as a paged list.
func (s *Server) ideas(w http.ResponseWriter, r *http.Request, m *core.Member) {
	s.showIdeas(w, r, m, http.StatusOK, "", ideasData{})
}

func (s *Server) showIdeas(w http.ResponseWriter, r *http.Request, m *core.Member, status int, problem string, d ideasData) {
	q := r.URL.Query()
	d.Type, d.Types = core.RecordIdea, []core.RecordType{core.RecordIdea, core.RecordFeature}
	if q.Get("type") == string(core.RecordFeature) {
		d.Type = core.RecordFeature
	}
	v := view{Title: string(d.Type) + "s", Nav: "ideas", Member: m, Error: problem}
	statuses := core.Statuses(d.Type)
	if st := q.Get("status"); st != "" {
		if !slices.Contains(statuses, st) {
			v.Error, v.Data = "There is no status “"+st+"” for "+string(d.Type)+"s.", d
			s.render(w, r, http.StatusBadRequest, "ideas", v)
			return
		}
		d.Status, statuses = st, []string{st}
	}
	ctx := r.Context()
	for _, st := range statuses {
		limit := columnShown
		if d.Status != "" {
			limit = listShown
		}
		page, err := s.svc.List(ctx, m.Workspace, core.ListRequest{RecordType: string(d.Type), Statuses: []string{st},
			Order: "demand", Limit: limit, Cursor: q.Get("cursor")})
		var ve *core.ValidationError
		if errors.As(err, &ve) {
			v.Error, v.Data = ve.Message, d
			s.render(w, r, http.StatusBadRequest, "ideas", v)
			return
		}
		if err != nil {
			s.internal(w, r, err)
			return
		}
		if d.Status != "" {
			d.Records = page.Records
			if page.Next != "" {
				d.Next = url.Values{"type": {string(d.Type)}, "status": {st}, "cursor": {page.Next}}.Encode()
			}
			continue
		}
		col := boardColumn{Status: st, Records: page.Records}
		if page.Next != "" {
			col.More = url.Values{"type": {string(d.Type)}, "status": {st}}.Encode()
		}
		d.Columns = append(d.Columns, col)
	}
	v.Data = d
	s.render(w, r, status, "ideas", v)
}

// newIdea creates an Idea from the form and opens it; refused input shows the board again with the form
// filled in as it was.
func (s *Server) newIdea(w http.ResponseWriter, r *http.Request, m *core.Member) {
	title := r.PostFormValue("title")
	text := strings.TrimSpace(strings.ReplaceAll(r.PostFormValue("description"), "\r\n", "\n"))
	res, err := s.svc.Submit(acting(r, m), m.Workspace, core.Submission{Type: core.RecordIdea, Title: title,
		Description: text, PlainText: true, Source: "Manual"})
	var ve *core.ValidationError
	switch {
	case err == nil:
		http.Redirect(w, r, "/records/"+string(res.Record.ID), http.StatusSeeOther)
	case errors.As(err, &ve):
		s.showIdeas(w, r, m, http.StatusBadRequest, ve.Message, ideasData{Title: title, Text: text})
	case errors.Is(err, core.ErrIdeaLimit):
		s.showIdeas(w, r, m, http.StatusPaymentRequired, "The workspace has reached its plan's idea limit.", ideasData{Title: title, Text: text})
	default:
		s.internal(w, r, err)
	}
}
