package console

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

// fieldChoice is one record field on the preview: the column the person chose for it ("" for the one
// found by its usual header names) and the column that feeds it now.
type fieldChoice struct {
	Name   string // the mapping key (title, customer_email, …)
	Label  string
	Chosen string
	Used   string
}

type previewRow struct {
	Line  int
	Cells []string
	Err   string
}

type failedLine struct {
	Line   int
	Reason string
}

// dryResult is what a dry run found: the counts as the import would have them, and the first bad rows.
type dryResult struct {
	Run         core.ImportRun
	Failed      []failedLine
	More        int
	UnknownTags []string
}

type previewData struct {
	Token       string
	File        string
	Size        string
	Encoding    string // as read, detected or chosen
	UTF8        bool   // read as UTF-8, where a stray byte reads as Windows-1252
	Delimiter   string
	Encodings   []option
	Delimiters  []option
	Header      []string
	Fields      []fieldChoice
	Rows        []previewRow
	Problem     string // the file cannot be imported as chosen
	Choice      importChoice
	RecordTypes []core.RecordType
	Dry         *dryResult
}

var fieldLabels = []struct{ Name, Label string }{
	{csvimport.FieldTitle, "Title"}, {csvimport.FieldDescription, "Description"},
	{csvimport.FieldCustomerEmail, "Customer email"}, {csvimport.FieldCustomerName, "Customer name"},
	{csvimport.FieldSource, "Source"}, {csvimport.FieldCreatedAt, "Created at"},
	{csvimport.FieldExternalID, "External id"}, {csvimport.FieldTags, "Tags"},
	{csvimport.FieldRelease, "Release"}, {csvimport.FieldTimeframe, "Timeframe"},
}

// mappable are the fields a column can feed for records of type t.
func mappable(t core.RecordType) []fieldChoice {
	out := make([]fieldChoice, 0, len(fieldLabels))
	for _, f := range fieldLabels {
		if f.Name == csvimport.FieldRelease && t != core.RecordFeature || f.Name == csvimport.FieldTimeframe && t != core.RecordObjective {
			continue
		}
		out = append(out, fieldChoice{Name: f.Name, Label: f.Label})
	}
	return out
}

var encodingNames = map[string]string{
	csvimport.EncUTF8: "UTF-8", csvimport.EncUTF8BOM: "UTF-8 with byte order mark",
	csvimport.EncUTF16LE: "UTF-16 little-endian", csvimport.EncUTF16BE: "UTF-16 big-endian",
	csvimport.EncWindows1252: "Windows-1252",
}

// delimiterLabels name the delimiters on the preview form; the form's values are csvimport's words for
// them, so that the address of a preview reads plainly.
var delimiterLabels = map[rune]string{',': "comma ( , )", ';': "semicolon ( ; )", '\t': "tab", '|': "vertical bar ( | )"}

// option is one choice of a select on the preview form.
type option struct {
	Value, Label string
	Selected     bool
}

// readingOptions are the encodings and delimiters the preview form offers, the chosen ones selected.
func readingOptions(c importChoice) (encodings, delimiters []option) {
	for _, e := range csvimport.Encodings {
		encodings = append(encodings, option{Value: e, Label: encodingNames[e], Selected: e == c.Encoding})
	}
	for _, d := range csvimport.Delimiters {
		delimiters = append(delimiters, option{Value: csvimport.DelimiterName(d), Label: delimiterLabels[d], Selected: d == c.Delimiter})
	}
	return encodings, delimiters
}

func (s *Server) preview(w http.ResponseWriter, r *http.Request, m *core.Member) {
	c, problem := choiceFrom(r.URL.Query())
	if problem != "" {
		c = importChoice{Mapping: map[string]string{}, RecordType: core.RecordFeedback}
	}
	s.showPreview(w, r, m, r.PathValue("token"), c, nil)
}

// showPreview shows the upload's header and first rows under the choice made; with a dry run's result it
// shows that too.
func (s *Server) showPreview(w http.ResponseWriter, r *http.Request, m *core.Member, token string, c importChoice, dry *dryResult) {
	f, name, err := s.uploads.open(m.Workspace, token)
	if err != nil {
		s.goneUpload(w, r)
		return
	}
	defer f.Close()
	d := previewData{Token: token, File: name, Choice: c, Dry: dry,
		RecordTypes: []core.RecordType{core.RecordFeedback, core.RecordIdea, core.RecordFeature, core.RecordObjective}}
	if fi, err := f.Stat(); err == nil {
		d.Size = size(fi.Size())
	}
	d.Encodings, d.Delimiters = readingOptions(c)
	readPreview(f, c, &d)
	status := http.StatusOK
	if d.Problem != "" && dry != nil {
		status = http.StatusBadRequest
	}
	s.render(w, r, status, "preview", view{Title: "Import " + name, Nav: "imports", Member: m, Data: d})
}

// readPreview reads the header and the first previewRows rows of in under the choice, and nothing more
// of it: a preview of a file of any size costs the same.
func readPreview(in io.Reader, c importChoice, d *previewData) {
	d.Fields = mappable(c.RecordType)
	rd, err := csvimport.NewReader(in, csvimport.ReadOptions{Mapping: c.Mapping, DateOrder: c.DateOrder,
		Encoding: c.Encoding, Delimiter: c.Delimiter})
	var (
		fe    *csvimport.FormatError
		enc   string
		delim rune
	)
	switch {
	case errors.As(err, &fe):
		d.Problem, d.Header = fe.Error(), fe.Header
		enc, delim = fe.Encoding, fe.Delimiter
	case err != nil:
		d.Problem = "The file could not be read: " + err.Error()
	default:
		d.Header = rd.Header()
		enc, delim = rd.Encoding(), rd.Delimiter()
		for len(d.Rows) < previewRows {
			row, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				d.Problem = err.Error()
				break
			}
			pr := previewRow{Line: row.Line, Cells: clipCells(row.Columns, len(d.Header))}
			if row.Err != nil {
				pr.Err = row.Err.Error()
			}
			d.Rows = append(d.Rows, pr)
		}
	}
	d.Encoding, d.UTF8, d.Delimiter = encodingNames[enc], strings.HasPrefix(enc, csvimport.EncUTF8), delimiterLabels[delim]
	for i := range d.Fields {
		d.Fields[i].Chosen = c.Mapping[d.Fields[i].Name]
		if rd != nil {
			d.Fields[i].Used = rd.Column(d.Fields[i].Name)
		}
	}
}

// clipCells shortens long cells for the preview table and pads short rows to the header's width.
func clipCells(cells []string, width int) []string {
	out := make([]string, max(len(cells), width))
	for i, c := range cells {
		out[i] = core.Truncate(c, 140, "…")
	}
	return out
}
