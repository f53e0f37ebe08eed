package console

import (
	"errors"
	"net/http"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

type settingsData struct {
	Keys    []core.APIKey
	Members []core.Member // admins only
	NewKey  string        // the key just created, shown this once
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request, m *core.Member) {
	s.showSettings(w, r, m, http.StatusOK, "", "")
}

func (s *Server) showSettings(w http.ResponseWriter, r *http.Request, m *core.Member, status int, newKey, problem string) {
	keys, err := s.svc.Keys(r.Context(), m.Workspace)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := settingsData{Keys: keys, NewKey: newKey}
	if m.Role.Allows(core.RoleAdmin) {
		if d.Members, err = s.svc.Members(r.Context(), m.Workspace); err != nil {
			s.internal(w, r, err)
			return
		}
	}
	s.render(w, r, status, "settings", view{Title: "Settings", Nav: "settings", Member: m, Error: problem, Data: d})
}

// createKey issues a key and shows it in the answer itself, the only time it is ever shown; the page is
// no-store like every other, so it does not outlive the tab.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request, m *core.Member) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if len(name) > 200 {
		s.showSettings(w, r, m, http.StatusBadRequest, "", "A key name is at most 200 characters.")
		return
	}
	_, secret, err := s.svc.CreateKey(r.Context(), m.Workspace, name)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID}).Info("console: api key created")
	s.showSettings(w, r, m, http.StatusOK, secret, "")
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
