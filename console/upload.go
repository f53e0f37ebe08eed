package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

const (
	// previewRows is how many data rows the preview reads: the rest of the file is not touched.
	previewRows = 10
	// uploadTimeout is how long one upload or dry run may take, beyond the listener's usual deadlines.
	uploadTimeout = time.Hour
	// importWait is how long the import button waits for the run to finish before showing the run list
	// with the run still going.
	importWait = 10 * time.Second
	// failedShown bounds the bad rows a dry run lists; the count is always whole.
	failedShown = 50
)

// upload spools the posted file to disk as it arrives and opens its preview. The body is read as a stream
// of parts, so no part of it is held in memory beyond a copy buffer.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, m *core.Member) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(uploadTimeout))
	r.Body = http.MaxBytesReader(w, r.Body, s.uploads.limit+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		s.showImports(w, r, m, http.StatusBadRequest, importsData{}, "Choose a CSV file to upload.")
		return
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.showImports(w, r, m, http.StatusRequestEntityTooLarge, importsData{}, "The file is larger than the upload limit of "+size(s.uploads.limit)+".")
			return
		}
		if err != nil {
			s.showImports(w, r, m, http.StatusBadRequest, importsData{}, "The upload was cut off. Try again.")
			return
		}
		if part.FormName() != "file" {
			continue
		}
		name := baseName(part.FileName())
		if name == "" {
			break
		}
		token, n, err := s.uploads.save(m.Workspace, name, part)
		switch {
		case errors.Is(err, errTooLarge) || errors.As(err, &tooBig):
			s.showImports(w, r, m, http.StatusRequestEntityTooLarge, importsData{}, "The file is larger than the upload limit of "+size(s.uploads.limit)+".")
			return
		case err != nil:
			s.internal(w, r, err)
			return
		case n == 0:
			s.uploads.remove(m.Workspace, token)
			s.showImports(w, r, m, http.StatusBadRequest, importsData{}, "The file is empty.")
			return
		}
		http.Redirect(w, r, "/imports/upload/"+token, http.StatusSeeOther)
		return
	}
	s.showImports(w, r, m, http.StatusBadRequest, importsData{}, "Choose a CSV file to upload.")
}

// baseName keeps the last element of a file name as a browser or a script sent it.
func baseName(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if name == "." || name == ".." {
		return ""
	}
	return core.Truncate(name, 200, "…")
}

// importChoice is what a person chose on the preview: the column of each field, the record type, how to
// read dates of digits only, and the encoding and delimiter when not the detected ones.
type importChoice struct {
	Mapping    map[string]string
	RecordType core.RecordType
	DateOrder  csvimport.DateOrder
	Encoding   string // "" detects it
	Delimiter  rune   // 0 detects it
}

// options are the choice as the importer takes it.
func (c importChoice) options() csvimport.Options {
	return csvimport.Options{Connector: ConnectorConsole, RecordType: c.RecordType, Mapping: c.Mapping,
		DateOrder: c.DateOrder, Encoding: c.Encoding, Delimiter: c.Delimiter}
}

// choiceFrom reads the choice from a query or a form; a value that is not offered is a plain mistake.
func choiceFrom(v url.Values) (importChoice, string) {
	c := importChoice{Mapping: map[string]string{}, RecordType: core.RecordFeedback}
	if t := v.Get("record_type"); t != "" {
		rt, ok := core.ParseRecordType(t)
		if !ok {
			return c, "Choose a record type: Feedback, Idea, Feature or Objective."
		}
		c.RecordType = rt
	}
	order, err := csvimport.ParseDateOrder(v.Get("date_order"))
	if err != nil {
		return c, "Choose how dates are written: day first, month first or year first."
	}
	c.DateOrder = order
	if c.Encoding = v.Get("encoding"); csvimport.CheckEncoding(c.Encoding) != nil {
		return c, "Choose an encoding: UTF-8, UTF-16 or Windows-1252."
	}
	if c.Delimiter, err = csvimport.ParseDelimiter(v.Get("delimiter")); err != nil {
		return c, "Choose a delimiter: comma, semicolon, tab or vertical bar."
	}
	for _, f := range mappable(c.RecordType) {
		if col := v.Get("map." + f.Name); col != "" {
			c.Mapping[f.Name] = col
		}
	}
	return c, ""
}

// query is the choice as the preview address carries it.
func (c importChoice) query() string {
	v := url.Values{"record_type": {string(c.RecordType)}}
	if c.DateOrder != "" {
		v.Set("date_order", string(c.DateOrder))
	}
	if c.Encoding != "" {
		v.Set("encoding", c.Encoding)
	}
	if d := csvimport.DelimiterName(c.Delimiter); d != "" {
		v.Set("delimiter", d)
	}
	for k, col := range c.Mapping {
		v.Set("map."+k, col)
	}
	return v.Encode()
}

// runUpload answers the preview form: Update preview shows the new choice, Dry run checks every row,
// Import writes them.
func (s *Server) runUpload(w http.ResponseWriter, r *http.Request, m *core.Member) {
	token := r.PathValue("token")
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	c, problem := choiceFrom(r.PostForm)
	switch r.PostForm.Get("action") {
	case "dry-run":
		if problem == "" {
			s.dryRun(w, r, m, token, c)
			return
		}
	case "import":
		if problem == "" {
			s.startImport(w, r, m, token, c)
			return
		}
	}
	http.Redirect(w, r, "/imports/upload/"+token+"?"+c.query(), http.StatusSeeOther)
}

func (s *Server) dryRun(w http.ResponseWriter, r *http.Request, m *core.Member, token string, c importChoice) {
	f, name, err := s.uploads.open(m.Workspace, token)
	if err != nil {
		s.goneUpload(w, r)
		return
	}
	defer f.Close()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(uploadTimeout))
	var bad []failedLine
	res := &dryResult{}
	opts := c.options()
	opts.DryRun = true
	opts.UnknownTags = func(labels []string) { res.UnknownTags = labels }
	opts.BadRow = func(line int, reason string) {
		if len(bad) < failedShown {
			bad = append(bad, failedLine{Line: line, Reason: reason})
		}
	}
	run, err := csvimport.Import(acting(r, m), s.svc, m.Workspace, f, name, opts)
	res.Run, res.Failed = run, bad
	res.More = run.Failed - len(bad)
	if err != nil {
		var fe *csvimport.FormatError
		if !errors.As(err, &fe) {
			s.internal(w, r, err)
			return
		}
	}
	s.showPreview(w, r, m, token, c, res)
}

// startImport imports the upload in the background and shows the run list when it is done, or after a
// short wait while it is still going (the list shows its counts as they grow).
func (s *Server) startImport(w http.ResponseWriter, r *http.Request, m *core.Member, token string, c importChoice) {
	f, name, err := s.uploads.open(m.Workspace, token)
	if err != nil {
		s.goneUpload(w, r)
		return
	}
	if !s.busy.take(token) {
		f.Close()
		http.Redirect(w, r, "/imports?running=1", http.StatusSeeOther)
		return
	}
	// The import outlives the request: a person may close the tab of a long one.
	ctx := context.WithoutCancel(acting(r, m))
	ws := m.Workspace
	done := make(chan error, 1)
	go func() {
		defer s.busy.release(token)
		defer f.Close()
		// The run keeps its failed rows in the store, so no errors file is written.
		opts := c.options()
		opts.Log = s.log
		run, err := csvimport.Import(ctx, s.svc, ws, f, name, opts)
		var fe *csvimport.FormatError
		if run.ID != "" && !errors.As(err, &fe) {
			s.uploads.remove(ws, token)
		}
		if err != nil {
			s.log.WithError(err).WithFields(map[string]any{"workspace": ws, "run": run.ID}).Warn("console: import failed")
		}
		done <- err
	}()
	select {
	case err := <-done:
		var fe *csvimport.FormatError
		if errors.As(err, &fe) {
			http.Redirect(w, r, "/imports/upload/"+token+"?"+c.query(), http.StatusSeeOther)
			return
		}
		http.Redirect(w, r, "/imports", http.StatusSeeOther)
	case <-time.After(importWait):
		http.Redirect(w, r, "/imports?running=1", http.StatusSeeOther)
	}
}

func (s *Server) goneUpload(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, http.StatusNotFound, "This upload is gone: it was imported already, or nobody imported it within a day. Upload the file again.")
}
