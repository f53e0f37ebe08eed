package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// bulkStatuses are the statuses the inbox's buttons set on the selection.
var bulkStatuses = map[string]string{"processed": core.StatusProcessed, "archived": "Archived"}

// maxSelection bounds one action: the inbox shows no more rows than this at once.
const maxSelection = inboxPageSize

// selection reads and checks the selected feedback before anything is written, so that a selection with
// one bad entry changes nothing. It answers the request itself when it returns false.
func (s *Server) selection(w http.ResponseWriter, r *http.Request, m *core.Member, ids []string) ([]core.ID, bool) {
	if len(ids) == 0 {
		s.fail(w, r, http.StatusBadRequest, "Select at least one feedback first.")
		return nil, false
	}
	if len(ids) > maxSelection {
		s.fail(w, r, http.StatusBadRequest, "Select at most 50 feedback at once.")
		return nil, false
	}
	out := make([]core.ID, 0, len(ids))
	for _, raw := range ids {
		id, err := core.ParseID(raw)
		if err == nil {
			var rec core.Record
			rec, err = s.svc.Record(r.Context(), m.Workspace, id)
			if err == nil && rec.Type != core.RecordFeedback {
				err = core.ErrNotFound
			}
		}
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			s.internal(w, r, err)
			return nil, false
		}
		if err != nil {
			s.fail(w, r, http.StatusNotFound, "A selected feedback does not exist (any more); nothing was changed.")
			return nil, false
		}
		out = append(out, id)
	}
	return out, true
}

// back is the inbox with the filter it was acted on from; only the filter's own fields survive, so the
// redirect cannot be pointed elsewhere.
func back(r *http.Request) string {
	q, _ := url.ParseQuery(r.PostFormValue("back"))
	if v := readFilter(q).values().Encode(); v != "" {
		return "/inbox?" + v
	}
	return "/inbox"
}

// bulkStatus sets the status the pressed button names on every selected feedback.
func (s *Server) bulkStatus(w http.ResponseWriter, r *http.Request, m *core.Member) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	status, ok := bulkStatuses[r.PostForm.Get("action")]
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "Choose Mark processed or Archive.")
		return
	}
	ids, ok := s.selection(w, r, m, r.PostForm["id"])
	if !ok {
		return
	}
	ctx := acting(r, m)
	for _, id := range ids {
		_, err := s.svc.Update(ctx, m.Workspace, id, core.Patch{Status: &status}, "")
		if err != nil && !errors.Is(err, core.ErrMerged) {
			s.internal(w, r, err)
			return
		}
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}

type linkPickData struct {
	IDs     []core.ID
	Back    string
	Search  string
	Targets []core.Record
}

// linkShown bounds the ideas and features offered per type; a search narrows them.
const linkShown = "15"

// linkToPage picks the Idea or Feature the selected feedback is linked to.
func (s *Server) linkToPage(w http.ResponseWriter, r *http.Request, m *core.Member) {
	q := r.URL.Query()
	ids, ok := s.selection(w, r, m, q["id"])
	if !ok {
		return
	}
	d := linkPickData{IDs: ids, Back: q.Get("back"), Search: strings.TrimSpace(q.Get("search"))}
	v := view{Title: "Link to idea", Nav: "inbox", Member: m}
	for _, t := range []core.RecordType{core.RecordIdea, core.RecordFeature} {
		page, err := s.svc.List(r.Context(), m.Workspace, core.ListRequest{RecordType: string(t), Search: d.Search, Order: "demand", Limit: linkShown})
		var ve *core.ValidationError
		if errors.As(err, &ve) {
			v.Error, v.Data = ve.Message, d
			s.render(w, r, http.StatusBadRequest, "linkto", v)
			return
		}
		if err != nil {
			s.internal(w, r, err)
			return
		}
		d.Targets = append(d.Targets, page.Records...)
	}
	v.Data = d
	s.render(w, r, http.StatusOK, "linkto", v)
}

// bulkLink links every selected feedback to the chosen Idea or Feature.
func (s *Server) bulkLink(w http.ResponseWriter, r *http.Request, m *core.Member) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	ids, ok := s.selection(w, r, m, r.PostForm["id"])
	if !ok {
		return
	}
	target, err := core.ParseID(r.PostForm.Get("target"))
	if err == nil {
		var rec core.Record
		rec, err = s.svc.Record(r.Context(), m.Workspace, target)
		if err == nil && rec.Type != core.RecordIdea && rec.Type != core.RecordFeature {
			err = core.ErrNotFound
		}
	}
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		s.internal(w, r, err)
		return
	}
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "The chosen idea does not exist (any more); nothing was linked.")
		return
	}
	ctx := acting(r, m)
	for _, id := range ids {
		if _, err := s.svc.Link(ctx, m.Workspace, id, target, nil); err != nil && !errors.Is(err, core.ErrMerged) {
			s.internal(w, r, err)
			return
		}
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}
