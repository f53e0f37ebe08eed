package core

import "time"

// Plan is a workspace's subscription plan.
type Plan string

const (
	PlanFree     Plan = "free"
	PlanStarter  Plan = "starter"
	PlanPro      Plan = "pro"
	PlanBusiness Plan = "business"
)

// ParsePlan accepts the four plan names in any case.
func ParsePlan(s string) (Plan, bool) {
	switch p := Plan(lower(s)); p {
	case PlanFree, PlanStarter, PlanPro, PlanBusiness:
		return p, true
	}
	return "", false
}

// HasAPI reports whether the plan includes the records API.
func (p Plan) HasAPI() bool { return p == PlanPro || p == PlanBusiness }

// DefaultIdeaLimit is the idea limit a workspace gets when none is given; 0 means unlimited.
func (p Plan) DefaultIdeaLimit() int {
	switch p {
	case PlanFree:
		return 25
	case PlanStarter:
		return 250
	case PlanPro:
		return 1000
	}
	return 0
}

// Workspace is one tenant: every record, key and lookup belongs to exactly one.
type Workspace struct {
	ID        ID
	Name      string
	Plan      Plan
	IdeaLimit int // 0 = unlimited
	IdeasUsed int
	Suspended bool
	CreatedAt time.Time
}

// APIKey is a stored key: only the SHA-256 hash of the secret is kept.
type APIKey struct {
	ID        ID
	Workspace ID
	Name      string
	Prefix    string // first characters of the key, to recognise it in listings
	Hash      string // hex SHA-256 of the whole key
	CreatedAt time.Time
	RevokedAt time.Time // zero while active
}

// RecordType is one of the four record kinds.
type RecordType string

const (
	RecordIdea      RecordType = "Idea"
	RecordFeedback  RecordType = "Feedback"
	RecordFeature   RecordType = "Feature"
	RecordObjective RecordType = "Objective"
)

// ParseRecordType accepts the four types in any case.
func ParseRecordType(s string) (RecordType, bool) {
	for _, t := range []RecordType{RecordIdea, RecordFeedback, RecordFeature, RecordObjective} {
		if lower(s) == lower(string(t)) {
			return t, true
		}
	}
	return "", false
}

// StatusTriage is the status of every new record.
const StatusTriage = "Triage"

// Record is a stored record with its labels resolved.
type Record struct {
	ID              ID
	Workspace       ID
	Type            RecordType
	Title           string
	DescriptionHTML string // sanitized HTML as stored
	Description     string // plain text, what every response shows
	Status          string
	AssigneeID      ID
	Assignee        string // display name
	ProductID       ID
	Product         string
	TagIDs          []ID
	Tags            []string
	Source          string
	CustomerEmail   string
	Customer        string // company name, "" when none
	CompanyID       ID
	ContactID       ID
	Reporter        string
	Release         string
	Timeframe       string
	CreatedAt       time.Time
	UpdatedAt       time.Time

	CustomerName  string // the contact's name
	Importance    int    // Feedback: 1-3, 0 for none
	Links         []ID   // Feedback: the Ideas and Features it is linked to, oldest link first
	FeedbackCount int    // Idea and Feature: linked Feedback
	MergedInto    ID     // set on a Merged record
	// Accounts is set by the store on an Idea: company names of its customer and its linked feedback's
	// customers, most frequent first. Nil on every other type.
	Accounts  []string
	Version   int64 // moves with every change of what a read shows; the ETag is made from it
	CreatedBy Actor
}

// Lookup is a tag, product or user as the API lists them.
type Lookup struct {
	ID    ID
	Label string
}

// LookupKind names the simple label sets.
type LookupKind string

const (
	LookupTag     LookupKind = "tag"
	LookupProduct LookupKind = "product"
)

// User is a workspace member who can be an assignee.
type User struct {
	ID    ID
	Name  string
	Email string
}

// Company groups contacts by email domain.
type Company struct {
	ID     ID
	Name   string
	Domain string
	// FeedbackCount is how many records credit the company; CreatedAt is when it was first seen. Both are
	// kept by the store: a company written with PutCompany ignores them.
	FeedbackCount int
	CreatedAt     time.Time
}

// ImportRun is one CSV import, scheduled or from the CLI.
type ImportRun struct {
	ID         ID
	Workspace  ID
	Connector  string
	File       string
	Status     string // running | succeeded | failed
	Rows       int
	Created    int
	Duplicates int
	Failed     int
	Error      string
	StartedAt  time.Time
	FinishedAt time.Time // zero while running
}

// FailedRow is a row of an import run that was not imported: the line it starts on, why, and its cells as
// read.
type FailedRow struct {
	Line   int
	Reason string
	Cells  []string
}

// FailedRows are the failed rows kept with a run, by line, and the header row of its input.
type FailedRows struct {
	Header []string
	Rows   []FailedRow
}

// Import run states.
const (
	ImportRunning   = "running"
	ImportSucceeded = "succeeded"
	ImportFailed    = "failed"
)

// ConnectorStatus is what GET /api/connectors shows of a connector entry; never a secret.
type ConnectorStatus struct {
	Workspace     ID
	Name          string
	Kind          string
	State         string
	LastSuccessAt time.Time
	LastError     string
	// Refused counts the items the entry read but would not store (never a fault of the entry: LastError
	// and /readyz ignore them). Written, it is what the writer refused since its last write, which the store
	// adds to the stored count; read, it is the count since the status was first written, summed over
	// replicas and restarts.
	Refused int64
	// LastRefused is the reason of the newest refusal (never a secret, at most a short excerpt of outside
	// text) and LastRefusedAt its time; the store keeps the newer of what it holds and what is written.
	LastRefused   string
	LastRefusedAt time.Time
	UpdatedAt     time.Time
	// TakenToday and RefusedToday are the entry's counts of the current UTC day (ConnectorCount); the
	// store's status row does not hold them.
	TakenToday, RefusedToday int
}
