// Package console serves the pages for people: members sign in and triage feedback in server-rendered
// pages made from the embedded templates and static files, with no framework, CDN or build step. Like the
// API it reads and writes only through core.Service; every page is private, framed by no one, and every
// state-changing request is checked against cross-site forgery.
package console

import (
	"errors"
	"html/template"
	"io"
	"net/http"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// Options configure a Server; zero values are usable defaults.
type Options struct {
	Log *logrus.Entry
	// FailureDelay is the wait added per failed sign-in beyond the first few, per client address and per
	// address signed in as; 0 means DefaultFailureDelay.
	FailureDelay time.Duration
	Now          func() time.Time
	// PublicURL is the base of sign-in links made in the console; empty: the host the admin used.
	PublicURL string
	// UploadDir holds uploaded CSV files between preview and import, and console runs' failed rows;
	// empty: a folder under the system's temporary directory.
	UploadDir string
	// UploadLimit bounds one uploaded file in bytes; 0 means DefaultUploadLimit.
	UploadLimit int64
	// Configured reports whether a connector entry of a workspace is in the running configuration (as
	// api.Options.Configured); nil shows every stored entry.
	Configured func(ws core.ID, kind, name string) bool
}

// DefaultFailureDelay is the first wait that repeated failed sign-ins cost; it doubles with each further one.
const DefaultFailureDelay = time.Second

// Server is the console over one core.Service.
type Server struct {
	svc      *core.Service
	log      *logrus.Entry
	pages    map[string]*template.Template
	throttle *throttle
	csrf     *http.CrossOriginProtection
	now      func() time.Time
	// publicURL is the base of sign-in links; uploads keeps CSV uploads and failed rows.
	publicURL string
	uploads   *spool
	busy      busyUploads
	// configured: see Options.Configured.
	configured func(ws core.ID, kind, name string) bool
}

// New parses the templates and builds the server; a template that does not parse is a programming error.
func New(svc *core.Service, o Options) *Server {
	s := &Server{svc: svc, log: o.Log, now: o.Now, publicURL: o.PublicURL, configured: o.Configured}
	if s.log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		s.log = logrus.NewEntry(l)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if o.FailureDelay <= 0 {
		o.FailureDelay = DefaultFailureDelay
	}
	s.throttle = newThrottle(o.FailureDelay, s.now)
	s.pages = parsePages()
	s.uploads = newSpool(o.UploadDir, o.UploadLimit, s.now)
	s.csrf = http.NewCrossOriginProtection()
	s.csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusForbidden, "This request came from another site and was refused.")
	}))
	return s
}

// Register mounts the console's routes on mux, beside the API's.
func (s *Server) Register(mux *http.ServeMux) {
	page := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, s.secure(h)) }
	mux.Handle("GET /static/", s.secure(staticHandler()))
	page("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/inbox", http.StatusSeeOther) })
	page("GET /signin", s.signinPage)
	page("POST /signin", s.signin)
	page("POST /signout", s.signout)
	page("GET /signin/link", s.linkPage)
	page("POST /signin/link", s.useLink)

	page("GET /inbox", s.member(core.RoleViewer, s.inbox))
	page("POST /inbox/status", s.member(core.RoleEditor, s.bulkStatus))
	page("GET /inbox/link", s.member(core.RoleEditor, s.linkToPage))
	page("POST /inbox/link", s.member(core.RoleEditor, s.bulkLink))
	page("GET /records/{id}", s.member(core.RoleViewer, s.record))
	page("POST /records/{id}", s.member(core.RoleEditor, s.saveRecord))
	page("POST /records/{id}/links", s.member(core.RoleEditor, s.linkRecord))
	page("POST /records/{id}/links/{target}/remove", s.member(core.RoleEditor, s.unlinkRecord))
	page("GET /records/{id}/merge", s.member(core.RoleEditor, s.mergePage))
	page("POST /records/{id}/merge", s.member(core.RoleEditor, s.mergeRecord))
	page("GET /records/{id}/delete", s.member(core.RoleEditor, s.deletePage))
	page("POST /records/{id}/delete", s.member(core.RoleEditor, s.deleteRecord))
	page("GET /ideas", s.member(core.RoleViewer, s.ideas))
	page("POST /ideas", s.member(core.RoleEditor, s.newIdea))
	page("GET /companies", s.member(core.RoleViewer, s.companies))
	page("GET /companies/{id}", s.member(core.RoleViewer, s.company))
	page("GET /signals", s.member(core.RoleViewer, s.signals))
	page("GET /connectors", s.member(core.RoleViewer, s.connectors))
	page("GET /settings", s.member(core.RoleViewer, s.settings))
	page("POST /settings/keys", s.member(core.RoleAdmin, s.createKey))
	page("POST /settings/keys/{id}/revoke", s.member(core.RoleAdmin, s.revokeKey))
	page("POST /settings/members", s.member(core.RoleAdmin, s.addMember))
	page("POST /settings/members/{id}/role", s.member(core.RoleAdmin, s.changeRole))
	page("POST /settings/members/{id}/remove", s.member(core.RoleAdmin, s.removeMember))
	page("POST /settings/members/{id}/link", s.member(core.RoleAdmin, s.memberLink))
	s.registerImports(page)
}

// secure sends every console response private and unframeable, with a policy that runs only the console's
// own script and style files, and refuses unsafe requests made from other sites.
func (s *Server) secure(next http.Handler) http.Handler {
	protected := s.csrf.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "+
			"form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		// Sign-in link tokens travel in the query; no other site may see them in a Referer.
		h.Set("Referrer-Policy", "no-referrer")
		protected.ServeHTTP(w, r)
	})
}

// internal answers a failure of the service: a missing thing is 404, the rest is logged and 500 (or 503
// when the store is down) without details.
func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, core.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, "There is nothing at this address.")
	case errors.Is(err, core.ErrUnavailable):
		s.log.WithError(err).WithField("path", r.URL.Path).Warn("console: store unavailable")
		s.fail(w, r, http.StatusServiceUnavailable, "The store is not reachable right now. Try again in a moment.")
	default:
		s.log.WithError(err).WithField("path", r.URL.Path).Error("console: request failed")
		s.fail(w, r, http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment.")
	}
}
