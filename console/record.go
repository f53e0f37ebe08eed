package console

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/feedbridge/feedbridge/core"
)

// recordData is everything the record page shows around the record itself.
type recordData struct {
	Record      core.Record
	Insights    []core.Insight
	Suggestions []core.Suggestion
	// NoSuggestions is set when the matcher could not be asked; the page says so instead of showing none.
	NoSuggestions bool
	Links         []core.Record // Feedback: what it is linked to
	Linked        []core.Record // Idea and Feature: the feedback linked to it
	History       []core.HistoryEntry
	// Titles names the records the history's links and merges point at, by id, where they could be read.
	Titles     map[string]string
	Statuses   []string
	MergedInto *core.Record
}

// recordFields are the history fields whose values are ids of other records.
var recordFields = map[string]bool{"links": true, "merged_into": true, "merged_from": true}

// titlesRead bounds the records the history names that a page view reads beyond those it shows anyway.
const titlesRead = 20

// linkedShown bounds the linked feedback listed on an Idea or Feature; its count is on the record.
const linkedShown = "50"

// acting credits the member with what the request writes, so the history names who did it.
func acting(r *http.Request, m *core.Member) context.Context {
	return core.WithActor(r.Context(), core.Actor{Kind: core.ActorMember, Name: m.Email})
}

// recordID reads the id of the address; a malformed one is answered like an absent one.
func (s *Server) recordID(w http.ResponseWriter, r *http.Request) (core.ID, bool) {
	id, err := core.ParseID(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "There is no record at this address.")
		return "", false
	}
	return id, true
}

// loadRecord reads the record and what its page shows. Not found, whether absent or another
// workspace's, is the same 404.
func (s *Server) loadRecord(w http.ResponseWriter, r *http.Request, m *core.Member, id core.ID) (recordData, bool) {
	ctx, ws := r.Context(), m.Workspace
	rec, err := s.svc.Record(ctx, ws, id)
	if errors.Is(err, core.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "There is no record at this address.")
		return recordData{}, false
	}
	if err != nil {
		s.internal(w, r, err)
		return recordData{}, false
	}
	d := recordData{Record: rec, Statuses: core.Statuses(rec.Type)}
	// What the page shows around the record are independent reads of the record already read: run side by
	// side, the page waits for the slowest of them rather than for their sum. Suggestions use the insights,
	// so they follow them.
	var (
		wg                      sync.WaitGroup
		insErr, histErr, lnkErr error
	)
	wg.Go(func() {
		var byRecord map[core.ID][]core.Insight
		if byRecord, insErr = s.svc.InsightsOf(ctx, ws, []core.ID{id}); insErr != nil {
			return
		}
		d.Insights = byRecord[id]
		if rec.Status == core.StatusMerged {
			return
		}
		var err error
		if d.Suggestions, err = s.svc.SuggestionsFor(ctx, ws, rec, d.Insights, core.DefaultSuggestions); err != nil {
			// The page is still useful without suggestions; a failing matcher must not hide the record.
			s.log.WithError(err).WithField("record", id).Warn("console: suggestions failed")
			d.NoSuggestions = true
		}
	})
	wg.Go(func() { d.History, histErr = s.svc.HistoryOf(ctx, ws, rec) })
	wg.Go(func() { lnkErr = s.loadLinks(r, ws, &d) })
	wg.Wait()
	if err := errors.Join(insErr, histErr, lnkErr); err != nil {
		s.internal(w, r, err)
		return recordData{}, false
	}
	if err := s.historyTitles(ctx, ws, &d); err != nil {
		s.internal(w, r, err)
		return recordData{}, false
	}
	return d, true
}

// historyTitles names the records the history links and merges point at, so that an entry says which idea
// a feedback was linked to rather than its id. The records the page shows already name most of them; a few
// more are read, and one that is gone keeps its id.
func (s *Server) historyTitles(ctx context.Context, ws core.ID, d *recordData) error {
	d.Titles = map[string]string{string(d.Record.ID): d.Record.Title}
	for _, r := range append(d.Links, d.Linked...) {
		d.Titles[string(r.ID)] = r.Title
	}
	if d.MergedInto != nil {
		d.Titles[string(d.MergedInto.ID)] = d.MergedInto.Title
	}
	read := 0
	for _, h := range d.History {
		for f, c := range h.Changes {
			if !recordFields[f] {
				continue
			}
			for _, v := range c {
				id, ok := v.(string)
				if _, known := d.Titles[id]; !ok || id == "" || known || read == titlesRead {
					continue
				}
				read++
				rec, err := s.svc.Record(ctx, ws, core.ID(id))
				if errors.Is(err, core.ErrNotFound) {
					d.Titles[id] = ""
					continue
				}
				if err != nil {
					return err
				}
				d.Titles[id] = rec.Title
			}
		}
	}
	return nil
}

// loadLinks fills in the records on either end of the record's links, and what it was merged into.
func (s *Server) loadLinks(r *http.Request, ws core.ID, d *recordData) error {
	ctx, rec := r.Context(), d.Record
	if rec.MergedInto != "" {
		into, err := s.svc.Record(ctx, ws, rec.MergedInto)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return err
		}
		if err == nil {
			d.MergedInto = &into
		}
	}
	switch rec.Type {
	case core.RecordFeedback:
		for _, id := range rec.Links {
			l, err := s.svc.Record(ctx, ws, id)
			if errors.Is(err, core.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			d.Links = append(d.Links, l)
		}
	case core.RecordIdea, core.RecordFeature:
		page, err := s.svc.LinkedFeedback(ctx, ws, rec.ID, core.ListRequest{Limit: linkedShown})
		if err != nil {
			return err
		}
		d.Linked = page.Records
	}
	return nil
}

// record shows one record whole, with the controls the member's role allows.
func (s *Server) record(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	s.showRecord(w, r, m, id, http.StatusOK, "")
}

// showRecord renders the record page, with problem as the complaint about what was just submitted.
func (s *Server) showRecord(w http.ResponseWriter, r *http.Request, m *core.Member, id core.ID, status int, problem string) {
	d, ok := s.loadRecord(w, r, m, id)
	if !ok {
		return
	}
	s.render(w, r, status, "record", view{Title: d.Record.Title, Nav: navOf(d.Record), Member: m, Error: problem, Data: d})
}

// navOf is the navigation entry a record belongs under.
func navOf(rec core.Record) string {
	if rec.Type == core.RecordFeedback {
		return "inbox"
	}
	return "ideas"
}

// moved answers the outcome of a change to record id: back to the page on success (so that reload does
// not post again), the page with the problem on bad input, and the usual pages for the rest.
func (s *Server) moved(w http.ResponseWriter, r *http.Request, m *core.Member, id core.ID, err error, next string) {
	var ve *core.ValidationError
	switch {
	case err == nil:
		http.Redirect(w, r, next, http.StatusSeeOther)
	case errors.As(err, &ve):
		s.showRecord(w, r, m, id, http.StatusBadRequest, ve.Message)
	case errors.Is(err, core.ErrMerged):
		s.showRecord(w, r, m, id, http.StatusConflict, "A merged record cannot be changed; change the record it was merged into.")
	case errors.Is(err, core.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, "There is no record at this address.")
	default:
		s.internal(w, r, err)
	}
}

// saveRecord applies the edit form. Only fields whose value differs are sent, so that saving an untouched
// form writes nothing and a text that merely looks like markup is not re-read as markup.
func (s *Server) saveRecord(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		s.showRecord(w, r, m, id, http.StatusBadRequest, "The form could not be read.")
		return
	}
	rec, err := s.svc.Record(r.Context(), m.Workspace, id)
	if err != nil {
		s.moved(w, r, m, id, err, "")
		return
	}
	var p core.Patch
	if v, ok := r.PostForm["title"]; ok && strings.TrimSpace(v[0]) != rec.Title {
		p.Title = &v[0]
	}
	if v, ok := r.PostForm["description"]; ok {
		// Browsers send line ends of a text area as CRLF; the store keeps LF.
		text := strings.TrimSpace(strings.ReplaceAll(v[0], "\r\n", "\n"))
		if text != rec.Description {
			p.Description = &text
		}
	}
	if v, ok := r.PostForm["status"]; ok && v[0] != rec.Status {
		p.Status = &v[0]
	}
	if p != (core.Patch{}) {
		_, err = s.svc.Update(acting(r, m), m.Workspace, id, p, "")
	}
	s.moved(w, r, m, id, err, "/records/"+string(id))
}

// linkRecord links the feedback to the Idea or Feature named by target.
func (s *Server) linkRecord(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	target, err := core.ParseID(r.PostFormValue("target"))
	if err != nil {
		s.showRecord(w, r, m, id, http.StatusBadRequest, "Choose the idea or feature to link to.")
		return
	}
	_, err = s.svc.Link(acting(r, m), m.Workspace, id, target, nil)
	s.moved(w, r, m, id, err, "/records/"+string(id))
}

// unlinkRecord removes the feedback's link to target.
func (s *Server) unlinkRecord(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, ok := s.recordID(w, r)
	if !ok {
		return
	}
	target, err := core.ParseID(r.PathValue("target"))
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "There is no such link.")
		return
	}
	err = s.svc.Unlink(acting(r, m), m.Workspace, id, target)
	s.moved(w, r, m, id, err, "/records/"+string(id))
}
