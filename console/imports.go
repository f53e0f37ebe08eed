package console

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"unicode"

	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

// ConnectorConsole names the import runs of files uploaded in the console; like "cli" it scopes external
// ids, so one external id is imported once through the console.
const ConnectorConsole = "console"

// runsShown bounds the run list; the API and the command line list them all.
const runsShown = 100

func (s *Server) registerImports(page func(string, http.HandlerFunc)) {
	page("GET /imports", s.member(core.RoleViewer, s.imports))
	page("POST /imports/upload", s.member(core.RoleEditor, s.upload))
	page("GET /imports/upload/{token}", s.member(core.RoleEditor, s.preview))
	page("POST /imports/upload/{token}", s.member(core.RoleEditor, s.runUpload))
	page("GET /imports/runs/{id}/failed.csv", s.member(core.RoleViewer, s.failedRows))
	page("GET /imports/runs/{id}/undo", s.member(core.RoleAdmin, s.undoPage))
	page("POST /imports/runs/{id}/undo", s.member(core.RoleAdmin, s.undo))
}

type runRow struct {
	core.ImportRun
	// FailedCut says the run failed more rows than it keeps: the download holds the first ones.
	FailedCut bool
}

type importsData struct {
	Runs  []runRow
	Limit string
	Undo  *core.UndoResult // the undo just done
	// Running says an import just started and is still going.
	Running string
	// FailedKept is how many failed rows a run keeps at most.
	FailedKept string
}

func (s *Server) imports(w http.ResponseWriter, r *http.Request, m *core.Member) {
	s.showImports(w, r, m, http.StatusOK, importsData{Running: r.URL.Query().Get("running")}, "")
}

func (s *Server) showImports(w http.ResponseWriter, r *http.Request, m *core.Member, status int, d importsData, problem string) {
	runs, err := s.svc.ImportRuns(r.Context(), m.Workspace)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	if len(runs) > runsShown {
		runs = runs[:runsShown]
	}
	d.Runs = make([]runRow, len(runs))
	for i, run := range runs {
		d.Runs[i] = runRow{ImportRun: run, FailedCut: run.Failed > csvimport.FailedRowsKept}
	}
	d.Limit = size(s.uploads.limit)
	d.FailedKept = fmt.Sprintf("%d", csvimport.FailedRowsKept)
	s.render(w, r, status, "imports", view{Title: "Imports", Nav: "imports", Member: m, Error: problem, Data: d})
}

// byPathID reads the thing the address's {id} names with find; a malformed id is answered like an absent
// one, 404 with the missing message, and any other failure as the service's.
func byPathID[T any](s *Server, w http.ResponseWriter, r *http.Request, find func(core.ID) (T, error), missing string) (T, bool) {
	var v T
	id, err := core.ParseID(r.PathValue("id"))
	if err != nil {
		err = core.ErrNotFound
	} else {
		v, err = find(id)
	}
	if errors.Is(err, core.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, missing)
		return v, false
	}
	if err != nil {
		s.internal(w, r, err)
		return v, false
	}
	return v, true
}

// run reads the import run of the address in the member's workspace; another workspace's is absent.
func (s *Server) run(w http.ResponseWriter, r *http.Request, m *core.Member) (core.ImportRun, bool) {
	return byPathID(s, w, r, func(id core.ID) (core.ImportRun, error) { return s.svc.ImportRun(r.Context(), m.Workspace, id) },
		"There is no such import run in this workspace.")
}

// failedRows sends the failed rows a run kept, with their line numbers and reasons, whoever started it. A
// console run from before runs kept them in the store has them in a file of the spool, sent as it is.
func (s *Server) failedRows(w http.ResponseWriter, r *http.Request, m *core.Member) {
	run, ok := s.run(w, r, m)
	if !ok {
		return
	}
	kept, err := s.svc.FailedRows(r.Context(), m.Workspace, run.ID)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	send := func(w io.Writer) error { return csvimport.WriteFailedRows(w, kept) }
	if len(kept.Rows) == 0 {
		f, err := os.Open(s.uploads.failedFile(m.Workspace, run.ID))
		if err != nil {
			s.fail(w, r, http.StatusNotFound, "No failed rows are kept for this run.")
			return
		}
		defer f.Close()
		send = func(w io.Writer) error { _, err := io.Copy(w, f); return err }
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": downloadName(run.File)}))
	if err := send(w); err != nil {
		s.log.WithError(err).Debug("console: failed rows download interrupted")
	}
}

func (s *Server) undoPage(w http.ResponseWriter, r *http.Request, m *core.Member) {
	run, ok := s.run(w, r, m)
	if !ok {
		return
	}
	s.render(w, r, http.StatusOK, "undo", view{Title: "Undo import", Nav: "imports", Member: m, Data: run})
}

// undo deletes the records of a run that nobody changed since, as `feedbridge import undo` does.
func (s *Server) undo(w http.ResponseWriter, r *http.Request, m *core.Member) {
	run, ok := s.run(w, r, m)
	if !ok {
		return
	}
	if run.Status == core.ImportRunning {
		s.showImports(w, r, m, http.StatusConflict, importsData{}, "This import is still running; undo it once it has finished.")
		return
	}
	out, err := s.svc.UndoImport(acting(r, m), run.ID)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID, "run": run.ID, "deleted": out.Deleted}).Info("console: import undone")
	s.showImports(w, r, m, http.StatusOK, importsData{Undo: &out}, "")
}

// busyUploads are the uploads being imported, so that a second click does not import a file twice.
type busyUploads struct {
	mu  sync.Mutex
	set map[string]bool
}

func (b *busyUploads) take(token string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.set[token] {
		return false
	}
	if b.set == nil {
		b.set = map[string]bool{}
	}
	b.set[token] = true
	return true
}

func (b *busyUploads) release(token string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.set, token)
}

// size shows a byte count as people read it.
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %cB", int64(v), "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.1f %cB", v, "KMGTPE"[exp])
}

// downloadName is the failed rows' file name for the browser: the errors file name of the run's input, with
// anything but letters, digits, spaces and . _ - made an underscore, so that it is a plain name anywhere.
func downloadName(file string) string {
	name := csvimport.ErrorsFileName(baseName(file))
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" ._-", r) {
			return r
		}
		return '_'
	}, name)
}
