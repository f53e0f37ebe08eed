package console

import (
	"errors"
	"net/http"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// mergeData is the page that picks what a record is merged into.
type mergeData struct {
	Record     core.Record
	Search     string
	Candidates []core.Record
}

// mergeShown bounds the candidates listed; a search narrows them.
const mergeShown = "20"

// mergePage lists records of the same type to merge into: the matcher's suggestions first when nothing is
// searched, otherwise what the search finds.
func (s *Server) mergePage(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	rec, err := s.svc.Record(ctx, m.Workspace, id)
	if err != nil {
		s.moved(w, r, m, id, err, "")
		return
	}
	if rec.Status == core.StatusMerged {
		s.moved(w, r, m, id, core.ErrMerged, "")
		return
	}
	d := mergeData{Record: rec, Search: strings.TrimSpace(r.URL.Query().Get("search"))}
	v := view{Title: "Merge " + rec.Title, Nav: navOf(rec), Member: m}
	page, err := s.svc.List(ctx, m.Workspace, core.ListRequest{RecordType: string(rec.Type), Search: d.Search, Limit: mergeShown})
	var ve *core.ValidationError
	switch {
	case errors.As(err, &ve):
		v.Error, v.Data = ve.Message, d
		s.render(w, r, http.StatusBadRequest, "merge", v)
		return
	case err != nil:
		s.internal(w, r, err)
		return
	}
	for _, c := range page.Records {
		if c.ID != rec.ID && c.Status != core.StatusMerged {
			d.Candidates = append(d.Candidates, c)
		}
	}
	v.Data = d
	s.render(w, r, http.StatusOK, "merge", v)
}

// mergeRecord merges the record into the one the form names and goes to it.
func (s *Server) mergeRecord(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	into := core.ID(strings.TrimSpace(r.PostFormValue("into")))
	_, err := s.svc.Merge(acting(r, m), m.Workspace, id, into)
	s.moved(w, r, m, id, err, "/records/"+string(into))
}

// deletePage asks once more before a record is deleted; the question is a page of its own so that it
// works without a script.
func (s *Server) deletePage(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	rec, err := s.svc.Record(r.Context(), m.Workspace, id)
	if err != nil {
		s.moved(w, r, m, id, err, "")
		return
	}
	s.render(w, r, http.StatusOK, "delete", view{Title: "Delete " + rec.Title, Nav: navOf(rec), Member: m, Data: rec})
}

// deleteRecord deletes the record and returns to the list it came from.
func (s *Server) deleteRecord(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	rec, err := s.svc.Record(r.Context(), m.Workspace, id)
	if err == nil {
		err = s.svc.Delete(acting(r, m), m.Workspace, id)
	}
	next := "/inbox"
	if navOf(rec) == "ideas" {
		next = "/ideas"
	}
	s.moved(w, r, m, id, err, next)
}
