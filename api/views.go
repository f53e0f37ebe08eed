package api

import (
	"strconv"

	"github.com/feedbridge/feedbridge/core"
)

// The response shapes of the contract. Absent strings are "", empty arrays [], only importance is null.

// feedbackView is POST /records/feedback's answer: exactly its ten fields.
type feedbackView struct {
	ID            core.ID `json:"id"`
	Title         string  `json:"title"`
	Description   string  `json:"description"`
	Status        string  `json:"status"`
	Customer      string  `json:"customer"`
	CustomerEmail string  `json:"customer_email"`
	Source        string  `json:"source"`
	Importance    *int    `json:"importance"` // always null on a new record
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
}

func newFeedbackView(r core.Record) feedbackView {
	return feedbackView{
		ID: r.ID, Title: r.Title, Description: r.Description, Status: r.Status, Customer: r.Customer,
		CustomerEmail: r.CustomerEmail, Source: r.Source, CreatedAt: timeString(r.CreatedAt), UpdatedAt: timeString(r.UpdatedAt),
	}
}

// recordView is the record object. accounts, release and timeframe are pointers so that each appears only
// on the record types that have it, and then even when empty.
type recordView struct {
	ID            core.ID   `json:"id"`
	RecordType    string    `json:"record_type"`
	Title         string    `json:"title"`
	Description   string    `json:"description"`
	Status        string    `json:"status"`
	Assignee      string    `json:"assignee"`
	Product       string    `json:"product"`
	Tags          []string  `json:"tags"`
	Accounts      *[]string `json:"accounts,omitempty"`
	Release       *string   `json:"release,omitempty"`
	Timeframe     *string   `json:"timeframe,omitempty"`
	Source        string    `json:"source"`
	Customer      string    `json:"customer"`
	CustomerEmail string    `json:"customer_email"`
	Reporter      string    `json:"reporter"`
	CreatedAt     string    `json:"createdAt"`
	UpdatedAt     string    `json:"updatedAt"`
	// Records that move: each appears only on the types (or the status) that have it.
	CustomerName  string     `json:"customer_name"`
	Importance    *nullInt   `json:"importance,omitempty"`
	Links         *[]core.ID `json:"links,omitempty"`
	FeedbackCount *int       `json:"feedback_count,omitempty"`
	MergedInto    *core.ID   `json:"merged_into,omitempty"`
}

// nullInt is a number that is null when zero: importance on a Feedback.
type nullInt int

func (n nullInt) MarshalJSON() ([]byte, error) {
	if n == 0 {
		return []byte("null"), nil
	}
	return []byte(strconv.Itoa(int(n))), nil
}

// NewRecordView is a record as GET /records/{id} shows it, for the command line's --json.
func NewRecordView(r core.Record) any { return newRecordView(r) }

func newRecordView(r core.Record) recordView {
	v := recordView{
		ID: r.ID, RecordType: string(r.Type), Title: r.Title, Description: r.Description, Status: r.Status,
		Assignee: r.Assignee, Product: r.Product, Tags: nonNil(r.Tags), Source: r.Source, Customer: r.Customer,
		CustomerEmail: r.CustomerEmail, Reporter: r.Reporter,
		CreatedAt: timeString(r.CreatedAt), UpdatedAt: timeString(r.UpdatedAt), CustomerName: r.CustomerName,
	}
	if r.Status == core.StatusMerged {
		m := r.MergedInto
		v.MergedInto = &m
	}
	switch r.Type {
	case core.RecordFeedback:
		imp, links := nullInt(r.Importance), append([]core.ID{}, r.Links...)
		v.Importance, v.Links = &imp, &links
	case core.RecordIdea, core.RecordFeature:
		n := r.FeedbackCount
		v.FeedbackCount = &n
	}
	switch r.Type {
	case core.RecordIdea, core.RecordFeedback:
		acc := []string{}
		if r.Accounts != nil {
			acc = append(acc, r.Accounts...)
		} else if r.Customer != "" {
			acc = append(acc, r.Customer)
		}
		v.Accounts = &acc
	case core.RecordFeature:
		rel := r.Release
		v.Release = &rel
	case core.RecordObjective:
		tf := r.Timeframe
		v.Timeframe = &tf
	}
	return v
}

func recordViews(rs []core.Record) []recordView {
	out := make([]recordView, len(rs))
	for i, r := range rs {
		out[i] = newRecordView(r)
	}
	return out
}

type lookupView struct {
	ID    core.ID `json:"id"`
	Label string  `json:"label"`
}

func lookupViews(ls []core.Lookup) []lookupView {
	out := make([]lookupView, len(ls))
	for i, l := range ls {
		out[i] = lookupView{ID: l.ID, Label: l.Label}
	}
	return out
}

type verifyView struct {
	Success     bool    `json:"success"`
	ID          core.ID `json:"id"`
	CompanyName string  `json:"company_name"`
	Message     string  `json:"message"`
}

// ImportRunView is the import run object of the contract, with the failure reason of a failed run as "error". The
// CLI prints the same object for `import csv --json` and `import runs --json`.
type ImportRunView struct {
	ID         core.ID `json:"id"`
	Connector  string  `json:"connector"`
	File       string  `json:"file"`
	Status     string  `json:"status"`
	Rows       int     `json:"rows"`
	Created    int     `json:"created"`
	Duplicates int     `json:"duplicates"`
	Failed     int     `json:"failed"`
	Error      string  `json:"error"`
	StartedAt  string  `json:"started_at"`
	FinishedAt string  `json:"finished_at"`
}

// NewImportRunView renders a run as the API and the CLI show it.
func NewImportRunView(r core.ImportRun) ImportRunView {
	return ImportRunView{
		ID: r.ID, Connector: r.Connector, File: r.File, Status: r.Status, Rows: r.Rows, Created: r.Created,
		Duplicates: r.Duplicates, Failed: r.Failed, Error: r.Error,
		StartedAt: timeString(r.StartedAt), FinishedAt: timeString(r.FinishedAt),
	}
}

type connectorView struct {
	Name          string `json:"name"`
	Kind          string `json:"kind"`
	State         string `json:"state"`
	LastSuccessAt string `json:"last_success_at"`
	LastError     string `json:"last_error"`
	Refused       int64  `json:"refused"`
	LastRefused   string `json:"last_refused"`
	LastRefusedAt string `json:"last_refused_at"`
}

type insightView struct {
	ID             core.ID  `json:"id"`
	Kind           string   `json:"kind"`
	Summary        string   `json:"summary"`
	Quote          string   `json:"quote"`
	Sentiment      string   `json:"sentiment"`
	SentimentScore float64  `json:"sentiment_score"`
	Themes         []string `json:"themes"`
	Tags           []string `json:"tags"`
	Extractor      string   `json:"extractor"`
	CreatedAt      string   `json:"createdAt"`
}

func newInsightView(in core.Insight) insightView {
	return insightView{
		ID: in.ID, Kind: in.Kind, Summary: in.Summary, Quote: in.Quote, Sentiment: in.Sentiment,
		SentimentScore: in.SentimentScore, Themes: nonNil(in.Themes), Tags: nonNil(in.Tags),
		Extractor: in.Extractor, CreatedAt: timeString(in.CreatedAt),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
