package core

import (
	"context"
	"time"
)

// NewRecord is a fully validated record as the service hands it to the store. The store writes it, its
// contact and company, its tags, the insight job, the idempotency entry and the checkpoint in one
// transaction, or nothing.
type NewRecord struct {
	ID              ID
	Type            RecordType
	Title           string
	DescriptionHTML string
	Description     string // plain text
	SearchText      string // case-folded title + "\n" + plain description
	Status          string
	Source          string
	AssigneeID      ID
	ProductID       ID
	TagIDs          []ID
	Contact         *ContactRef
	Reporter        string
	Release         string // Feature only
	Timeframe       string // Objective only
	CreatedAt       time.Time
	UpdatedAt       time.Time
	// CountIdea increments the workspace's ideas_used, failing with *IdeaLimitError when the limit is met.
	CountIdea bool
	// DedupKey, when set, is unique per workspace: a second write returns the first record, created=false.
	DedupKey string
	// EnqueueInsight adds a queued insight job for the record.
	EnqueueInsight bool
	// Outbox: the record.created events written in the same transaction as a created record (nil: none).
	Outbox      *Outbox
	Idempotency *Idempotency
	Checkpoint  *Checkpoint
	// CreatedBy is who created the record; the history's "created" entry is read from it.
	CreatedBy Actor
	// ImportRun is the CSV import run that wrote the record (bulk path only), so that it can be undone.
	ImportRun ID
	// Origin is the stored form of how a connector received it (Origin.String), "" for none.
	Origin string
}

// ContactRef names the customer of a record. The store matches the contact by EmailKey (lower-cased
// address) and the company by Domain, creating either when missing: a new company takes CompanyName, an
// existing one keeps its own; an existing contact without a name takes Name.
type ContactRef struct {
	Email       string // as given, trimmed
	EmailKey    string // lower-cased
	Name        string
	Domain      string // registrable domain in punycode; "" for personal mailboxes (no company)
	CompanyName string
}

// Idempotency ties a create to a client's Idempotency-Key. Fingerprint identifies the request (endpoint and
// body); the same key with another fingerprint within the window is ErrIdempotencyConflict.
type Idempotency struct {
	Key         string
	Fingerprint string
}

// IdempotencyWindow is how long a key is remembered.
const IdempotencyWindow = 24 * time.Hour

// Checkpoint is connector state written in the same transaction as a record.
type Checkpoint struct {
	Name  string
	Value string
}

// Cursor is a keyset position in a listing: the last record returned. Key is its sort key before
// createdAt: updatedAt in milliseconds in updated order, feedback_count in demand order, else 0.
type Cursor struct {
	Key       int64
	CreatedAt time.Time
	ID        ID
}

// List orders.
const (
	OrderCreated = "created"
	OrderUpdated = "updated"
	OrderDemand  = "demand"
)

// ListQuery selects records of one workspace. The store returns at most Limit records after Cursor in the
// query's order (createdAt, then id).
type ListQuery struct {
	Type         RecordType
	Search       string // case-folded substring; "" for none
	Asc          bool
	From, To     time.Time // inclusive; zero for open
	UpdatedSince time.Time
	ProductID    ID
	UserID       ID
	TagIDs       []ID // all must be present
	// Statuses: any of them; empty means every status but Merged.
	Statuses         []string
	CompanyID        ID
	CustomerEmailKey string // lower-cased address
	Linked           *bool  // Feedback linked to something (true) or to nothing (false)
	LinkedTo         ID     // only Feedback linked to this record
	Order            string // OrderCreated ("" too), OrderUpdated or OrderDemand
	Source           string // canonical source label; "" for any
	Theme            string // an insight of the record names this theme exactly; "" for any
	Limit            int
	After            *Cursor
}

// BulkResult is the outcome of one record of a bulk write.
type BulkResult struct {
	ID      ID
	Created bool // false: a record with the same dedup key existed
}

// Store is the persistence of every workspace. Every method that reads or writes tenant data takes the
// workspace id, and an id of another workspace behaves exactly like an absent one (ErrNotFound). Failures
// of the backend itself (down, unreachable) wrap ErrUnavailable.
//
// It is made of one interface per role, so that a part of the daemon that needs one role names only that
// one (the insight pool: QueueStore, RecordStore and LookupStore): RecordStore for records and what is
// written with them, LookupStore for the labels records point to, QueueStore for durable work, Leases for
// work that runs on one replica, and AdminStore for workspaces, keys, members and the store itself.
type Store interface {
	RecordStore
	LookupStore
	QueueStore
	Leases
	AdminStore
}

// RecordStore holds records and what is written or read with them: their moves, the connectors'
// checkpoints (written in a record's transaction), import runs, insights and signals.
type RecordStore interface {
	// Records. CreateRecord returns created=false with the earlier record for a repeated DedupKey or a
	// replayed idempotency key; unknown tag, product or assignee ids give *ValidationError naming the id.
	CreateRecord(ctx context.Context, ws ID, r NewRecord) (rec Record, created bool, err error)
	// CreateRecords writes many records in one transaction (the importers' bulk path). Idempotency and
	// CountIdea are not used there; duplicates by DedupKey come back with Created=false.
	CreateRecords(ctx context.Context, ws ID, rs []NewRecord) ([]BulkResult, error)
	Record(ctx context.Context, ws ID, id ID) (Record, error)
	// RecordsByID reads many records of ws in one go (the insight pool's jobs of one claim), in no given
	// order; an id of no record of ws is left out.
	RecordsByID(ctx context.Context, ws ID, ids []ID) ([]Record, error)
	Records(ctx context.Context, ws ID, q ListQuery) ([]Record, error)
	// ForgetContact erases a customer from ws: the contact goes, records that credit the address lose it,
	// every text that quotes the address or the contact's name says Removed instead, and dedup keys of
	// those records become their ErasedDedupKey. It works in transactions of EraseChunk records, and run
	// again after an interruption it finishes the job. No record is deleted.
	ForgetContact(ctx context.Context, ws ID, e Erasure) (Forgotten, error)

	// Records that move.
	RecordMoves

	// Connector checkpoints.
	Checkpoint(ctx context.Context, ws ID, name string) (string, error) // "" when none
	SetCheckpoint(ctx context.Context, ws ID, c Checkpoint) error

	// Import runs.
	// PutImportRun inserts or updates a run by id, and writes events (import.finished) in the same
	// transaction.
	PutImportRun(ctx context.Context, run ImportRun, events ...QueueItem) error
	ImportRuns(ctx context.Context, ws ID) ([]ImportRun, error) // newest first
	ImportRun(ctx context.Context, ws ID, id ID) (ImportRun, error)
	// KeepFailedRows adds rows to the failed rows kept with run of ws and sets the header they go with; a
	// line kept already is left as it was, so that a repeated call adds nothing twice. ErrNotFound when ws
	// has no such run.
	KeepFailedRows(ctx context.Context, ws, run ID, header []string, rows []FailedRow) error
	// FailedRows reads the failed rows kept with run of ws, by line; ErrNotFound when ws has no such run.
	FailedRows(ctx context.Context, ws, run ID) (FailedRows, error)
	// ForgetFailedRows deletes the failed rows kept with the runs of ws that started before t, and says
	// how many it deleted.
	ForgetFailedRows(ctx context.Context, ws ID, before time.Time) (int, error)
	// ForgetFailedRowsMentioning deletes the failed rows of ws whose cells or reason hold text, ignoring
	// ASCII case (a customer's address, when the customer is erased), and says how many it deleted.
	ForgetFailedRowsMentioning(ctx context.Context, ws ID, text string) (int, error)
	// UndoImport deletes, in transactions of UndoChunk records, the records of the run (of whichever
	// workspace it is) whose updatedAt is not after the run finished, and lists the others with
	// KeptChanged. A run still running is ErrConflict, an unknown one ErrNotFound. outbox gives the
	// outbox of the run's workspace (nil for none): each chunk writes record.deleted for each record it
	// deletes, as it was, in its own transaction.
	UndoImport(ctx context.Context, run ID, outbox func(ws ID) *Outbox) (UndoResult, error)

	// Insights and signals.
	Insights(ctx context.Context, ws ID, recordID ID) ([]Insight, error)
	// InsightsOf reads the insights of many records of ws in one query (a page of the inbox): each record's
	// in the order they were extracted, keyed by record id; records without any, or not of ws, are absent.
	InsightsOf(ctx context.Context, ws ID, recordIDs []ID) (map[ID][]Insight, error)
	InsightRows(ctx context.Context, ws ID, from, to time.Time) ([]InsightRow, error)
	// ThemeSignals aggregates a window's insights by theme in the store (GET /records/signals).
	ThemeSignals(ctx context.Context, ws ID, q SignalQuery) ([]ThemeSignal, error)
	// ThemeSeries counts per theme of q and per slice of its window (SeriesQuery.Bucket) the insights
	// naming the theme, in one query; q is checked by the caller.
	ThemeSeries(ctx context.Context, ws ID, q SeriesQuery) (map[string][]SeriesCount, error)
}

// LookupStore holds the labels records point to: tags, products, users and companies.
type LookupStore interface {
	// Lookups. PutLookups returns the stored items: a label that exists (case-insensitively) is not duplicated.
	PutLookups(ctx context.Context, ws ID, kind LookupKind, labels []string) ([]Lookup, error)
	Lookups(ctx context.Context, ws ID, kind LookupKind) ([]Lookup, error) // sorted by label, case-insensitive
	CreateUser(ctx context.Context, ws ID, u User) error
	Users(ctx context.Context, ws ID) ([]User, error) // sorted by name, case-insensitive
	// PutCompany creates a company or renames the one with that domain.
	PutCompany(ctx context.Context, ws ID, c Company) (Company, error)
	Companies(ctx context.Context, ws ID) ([]Company, error)
	// CompanyList returns at most q.Limit companies of ws after q.After, by FeedbackCount descending, then
	// id; Company one of them (ErrNotFound otherwise).
	CompanyList(ctx context.Context, ws ID, q CompanyQuery) ([]Company, error)
	Company(ctx context.Context, ws ID, id ID) (Company, error)
}

// QueueStore holds durable work, each piece claimed with a lease: insight jobs, deliveries kept for a
// connector's worker, and the general queue of outbound work.
type QueueStore interface {
	// Insight queue: insight jobs are items of the general queue (InsightQueue); these are its views for the
	// insight pool. Claim leases up to n due jobs (queued, or running with an expired lease) to worker,
	// shared fairly between workspaces (Queue's ClaimFair).
	ClaimInsightJobs(ctx context.Context, worker string, n int, lease time.Duration) ([]InsightJob, error)
	// CompleteInsightJob stores the insights and removes the job from the queue, only while worker still
	// holds it.
	CompleteInsightJob(ctx context.Context, job InsightJob, worker string, ins []Insight) error
	// CompleteInsightJobs completes many jobs as CompleteInsightJob does, in one transaction. A job worker
	// no longer holds is left as it is and its id returned in notHeld; an error means nothing was written.
	CompleteInsightJobs(ctx context.Context, worker string, results []JobResult) (notHeld []ID, err error)
	// FailInsightJob records an attempt's error: requeued at retryAt, or kept as failed when final.
	FailInsightJob(ctx context.Context, job InsightJob, worker string, msg string, retryAt time.Time, final bool) error
	// ReleaseInsightJob gives a claimed job back untouched (shutdown).
	ReleaseInsightJob(ctx context.Context, job InsightJob, worker string) error
	// ReleaseInsightJobs gives back, as ReleaseInsightJob does, every job worker holds except those in keep,
	// and returns how many. A worker whose claim failed calls it with the jobs it knows it holds: a claim
	// that committed while its answer was lost leaves jobs held that no one would run before their lease
	// ran out, and then only as another attempt.
	ReleaseInsightJobs(ctx context.Context, worker string, keep []ID) (int, error)
	// ExtendInsightJobs renews the lease of every job worker holds to lease from now (the worker's
	// heartbeat) and returns how many it holds.
	ExtendInsightJobs(ctx context.Context, worker string, lease time.Duration) (int, error)
	FailedInsightJobs(ctx context.Context, ws ID) ([]InsightJob, error) // ws "" for all workspaces
	// RetryInsightJobs requeues failed jobs: one by id, or all when id is "" (of ws, or all when ws is "").
	RetryInsightJobs(ctx context.Context, ws ID, id ID) (int, error)
	InsightQueueDepth(ctx context.Context) (int, error)
	// Deliveries: input a connector answered before writing it (core.Delivery), kept on the general queue
	// (DeliveryQueue of the entry) until its records are written. ClaimDeliveries leases
	// up to n due deliveries of the entry (queued ones whose time has come, and running ones whose lease ran
	// out), oldest first; each claim counts as an attempt. Finish removes a delivery and Fail records an
	// attempt's error (queued again at retryAt, or kept as failed when final), only while worker holds it
	// (ErrConflict otherwise). Deliveries lists the entry's kept deliveries of ws, oldest first.
	QueueDelivery(ctx context.Context, d Delivery) error
	ClaimDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]Delivery, error)
	FinishDelivery(ctx context.Context, d Delivery, worker string) error
	FailDelivery(ctx context.Context, d Delivery, worker, msg string, retryAt time.Time, final bool) error
	Deliveries(ctx context.Context, ws ID, entry string) ([]Delivery, error)

	// The general durable queue of outbound work (see Queue).
	Queue
}

// AdminStore holds workspaces and their keys, connector statuses, console members and the store's own
// state.
type AdminStore interface {
	// Workspaces and keys.
	CreateWorkspace(ctx context.Context, w Workspace) error
	Workspace(ctx context.Context, id ID) (Workspace, error)
	Workspaces(ctx context.Context) ([]Workspace, error)
	UpdateWorkspace(ctx context.Context, w Workspace) error // name, plan, idea limit, suspended
	CreateAPIKey(ctx context.Context, k APIKey) error
	APIKeys(ctx context.Context, ws ID) ([]APIKey, error)
	RevokeAPIKey(ctx context.Context, keyID ID, at time.Time) error
	// KeyByHash finds an active (not revoked) key and its workspace; ErrNotFound otherwise.
	KeyByHash(ctx context.Context, hash string) (APIKey, Workspace, error)

	// Connector statuses (GET /api/connectors).
	PutConnectorStatus(ctx context.Context, st ConnectorStatus) error
	ConnectorStatuses(ctx context.Context, ws ID) ([]ConnectorStatus, error)
	// AddConnectorCounts adds each count to its entry's and day's row, in one transaction.
	AddConnectorCounts(ctx context.Context, counts []ConnectorCount) error
	// ConnectorCounts lists the counts of ws's entries on day (entries without any are absent).
	ConnectorCounts(ctx context.Context, ws ID, day int64) ([]ConnectorCount, error)

	// Console members, sign-in links and sessions.
	MemberStore

	// StoreSecret returns a secret the store made once for itself ("cursor": the key that signs cursors).
	StoreSecret(ctx context.Context, name string) ([]byte, error)

	Ping(ctx context.Context) error
	Close() error
}

// Leases is the one mechanism for work that must run on exactly one replica: a named lease with an expiry
// that its holder renews. TryAcquire takes a free or expired lease, or renews the caller's own.
type Leases interface {
	TryAcquire(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	Release(ctx context.Context, name, holder string) error
}
