package console

import (
	"errors"
	"net/http"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

type settingsData struct {
	Keys    []core.APIKey
	Members []core.Member // every member reads the list; admins change it
	Me      core.ID
	Roles   []core.Role
	settingsNote
}

// settingsNote is what an action shows once: a new key or a new member's sign-in link.
type settingsNote struct {
	NewKey string
	Link   *newLink
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request, m *core.Member) {
	s.showSettings(w, r, m, http.StatusOK, settingsNote{}, "")
}

func (s *Server) showSettings(w http.ResponseWriter, r *http.Request, m *core.Member, status int, note settingsNote, problem string) {
	keys, err := s.svc.Keys(r.Context(), m.Workspace)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := settingsData{Keys: keys, Me: m.ID, Roles: roles, settingsNote: note}
	if d.Members, err = s.svc.Members(r.Context(), m.Workspace); err != nil {
		s.internal(w, r, err)
		return
	}
	s.render(w, r, status, "settings", view{Title: "Settings", Nav: "settings", Member: m, Error: problem, Data: d})
}

// createKey issues a key and shows it in the answer itself, the only time it is ever shown; the page is
// no-store like every other, so it does not outlive the tab.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request, m *core.Member) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if len(name) > 200 {
		s.showSettings(w, r, m, http.StatusBadRequest, settingsNote{}, "A key name is at most 200 characters.")
		return
	}
	_, secret, err := s.svc.CreateKey(r.Context(), m.Workspace, name)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID}).Info("console: api key created")
	s.showSettings(w, r, m, http.StatusOK, settingsNote{NewKey: secret}, "")
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, m *core.Member) {
	id, err := core.ParseID(r.PathValue("id"))
	if err == nil {
		err = s.svc.RevokeWorkspaceKey(r.Context(), m.Workspace, id)
	}
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		s.internal(w, r, err)
		return
	}
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "There is no such key in this workspace.")
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID, "key": id}).Info("console: api key revoked")
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}
