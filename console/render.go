package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// view is what the layout needs around every page's own data.
type view struct {
	Title     string
	Nav       string       // the navigation entry to mark as current
	Member    *core.Member // nil when signed out
	Workspace string
	Error     string // a problem with what was just submitted
	Data      any
}

// CanAdmin and CanEdit let templates show only the controls the member's role allows; the handlers check
// the role again, so a hidden button is a courtesy, not the guard.
func (v view) CanAdmin() bool { return v.Member != nil && v.Member.Role.Allows(core.RoleAdmin) }
func (v view) CanEdit() bool  { return v.Member != nil && v.Member.Role.Allows(core.RoleEditor) }

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"iso":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"age":    age,
	"value":  value,
	"change": change,
	"minus3": func(n int) int { return n - 3 },
	"add1":   func(n int) int { return n + 1 },
	"day":    func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
}

// change shows a value of the history change of field: a record's title in quotes where the field names
// records and the title is known, otherwise as value shows it.
func change(titles map[string]string, field string, v any) string {
	if id, ok := v.(string); ok && recordFields[field] && titles[id] != "" {
		return "“" + titles[id] + "”"
	}
	return value(v)
}

// value shows a value of a history change: nothing as "none", a list joined by commas.
func value(v any) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		if x == "" {
			return "none"
		}
		return x
	case []string:
		if len(x) == 0 {
			return "none"
		}
		return strings.Join(x, ", ")
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = value(p)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// age says how long ago t was, in the largest whole unit, as people say it.
func age(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d < 60*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day")
	}
	return t.UTC().Format("2 Jan 2006")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit + " ago"
	}
	return fmt.Sprintf("%d %ss ago", n, unit)
}

// parsePages makes one template set per page: the shared layout and the page's own file.
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		base := name[len("templates/") : len(name)-len(".html")]
		if base == "layout" {
			continue
		}
		pages[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", name))
	}
	return pages
}

// render writes a page; it renders into a buffer first so that a template failure becomes a clean 500
// rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	if v.Member != nil && v.Workspace == "" {
		if ws, err := s.svc.Workspace(r.Context(), v.Member.Workspace); err == nil {
			v.Workspace = ws.Name
		}
	}
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, "layout", v); err != nil {
		s.log.WithError(err).WithField("page", page).Error("console: render failed")
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	buf.WriteTo(w)
}

// fail shows a short error page with the status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, message string) {
	m, _ := s.current(r)
	s.render(w, r, status, "error", view{Title: http.StatusText(status), Member: m, Data: message})
}

// staticHandler serves the embedded style sheet, script and icon; the folder itself is not listed.
func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}
