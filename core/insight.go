package core

import "time"

// InsightJob is one feedback waiting for insight extraction: an item of the durable queue (InsightQueue,
// keyed by the record) seen as the insight pool uses it. A done job leaves the queue.
type InsightJob struct {
	ID          ID
	Workspace   ID
	RecordID    ID
	State       string // queued | running | failed (JobDone only where a caller reports a job gone)
	Attempts    int
	MaxAttempts int // always DefaultJobAttempts: the pool's configuration decides the last attempt
	LastError   string
	RunAt       time.Time // not before
	LeaseUntil  time.Time // while running
	LeasedBy    string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// JobResult is one finished job and the insights it produced, as CompleteInsightJobs takes them.
type JobResult struct {
	Job      InsightJob
	Insights []Insight
}

// Insight job states.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// DefaultJobAttempts is how often a job is tried before it is kept as failed.
const DefaultJobAttempts = 5

// Insight is one extracted statement of a feedback record.
type Insight struct {
	ID             ID
	Workspace      ID
	RecordID       ID
	Kind           string // request | problem | praise | question
	Summary        string
	Quote          string
	Sentiment      string // positive | neutral | negative
	SentimentScore float64
	Themes         []string
	Tags           []string
	Extractor      string
	CreatedAt      time.Time
}

// InsightRow is an insight with the record facts signals roll up by.
type InsightRow struct {
	Insight
	Customer        string    // company name of the record, "" when none
	RecordCreatedAt time.Time // when the record was created
}
