package core

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Observer hears about created records (metrics). It must not block.
type Observer interface {
	RecordCreated(source string, t RecordType)
}

// Options tune a Service; zero values are sensible defaults.
type Options struct {
	Companies   *CompanyResolver
	Sanitizer   *Sanitizer
	Now         func() time.Time
	Observer    Observer
	JobAttempts int        // insight job attempts before a job is kept as failed
	Faults      *Faults    // shared with the insight pool; nil: the service keeps its own
	Sources     *SourceSet // the source labels (sources.add); nil: the canonical set
	// Matcher ranks Ideas and Features for suggestions; nil: suggestions answer an error.
	Matcher Matcher
	// RecordView is the record as the API shows it, for event bodies; nil: the record as it is.
	RecordView func(Record) any
}

// Service enforces every rule of the contract over a Store. It is safe for concurrent use.
type Service struct {
	store      Store
	companies  *CompanyResolver
	sanitizer  *Sanitizer
	now        func() time.Time
	obs        Observer
	attempts   int
	wsCache    sync.Map // ID → wsState, see writable
	faults     *Faults
	sources    *SourceSet
	matcher    Matcher
	subs       subsPointer   // event subscribers by workspace (outbox.go)
	notify     notifyPointer // closing-the-loop policy (notify.go)
	recordView func(Record) any

	tally connectorTally // connector counts not yet written (conncount.go)

	keyMu        sync.Mutex
	cursorSecret []byte // the store's cursor key, read on first use
}

// NewService wires a service to its store.
func NewService(st Store, o Options) *Service {
	s := &Service{store: st, companies: o.Companies, sanitizer: o.Sanitizer, now: o.Now, obs: o.Observer, attempts: o.JobAttempts,
		faults: o.Faults, sources: o.Sources, matcher: o.Matcher, recordView: o.RecordView}
	if s.sources == nil {
		s.sources = defaultSources
	}
	if s.faults == nil {
		s.faults = &Faults{}
	}
	if s.companies == nil {
		s.companies = NewCompanyResolver(nil, nil)
	}
	if s.sanitizer == nil {
		s.sanitizer = NewSanitizer()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.attempts <= 0 {
		s.attempts = DefaultJobAttempts
	}
	return s
}

// TryAcquire takes or renews the named lease for holder; with Release it makes the Service the Leases
// that connectors hold, so none of them reaches for the store.
func (s *Service) TryAcquire(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	return s.store.TryAcquire(ctx, name, holder, ttl)
}

// Release gives the named lease back when holder has it.
func (s *Service) Release(ctx context.Context, name, holder string) error {
	return s.store.Release(ctx, name, holder)
}

// Store exposes the backend to the benchmarks and tests that measure or inspect it directly. The daemon,
// the CLI, the API and the connectors go through the Service's own methods.
func (s *Service) Store() Store { return s.store }

// Now is the service's clock, in UTC with millisecond precision like every stored time.
func (s *Service) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Authenticate resolves an API key to its workspace, enforcing revocation, suspension and plan.
func (s *Service) Authenticate(ctx context.Context, key string) (Workspace, APIKey, error) {
	if !wellFormedKey(key) {
		return Workspace{}, APIKey{}, ErrUnauthorized
	}
	k, ws, err := s.store.KeyByHash(ctx, HashAPIKey(key))
	if err != nil {
		if isNotFound(err) {
			return Workspace{}, APIKey{}, ErrUnauthorized
		}
		return Workspace{}, APIKey{}, err
	}
	if ws.Suspended {
		return Workspace{}, APIKey{}, ErrWorkspaceNotFound
	}
	if !ws.Plan.HasAPI() {
		return Workspace{}, APIKey{}, ErrPlan
	}
	return ws, k, nil
}

// Workspace returns one workspace.
func (s *Service) Workspace(ctx context.Context, ws ID) (Workspace, error) {
	return s.store.Workspace(ctx, ws)
}

// Record returns one record of the workspace.
func (s *Service) Record(ctx context.Context, ws, id ID) (Record, error) {
	return s.store.Record(ctx, ws, id)
}

// Tags lists the workspace's tags sorted by label.
func (s *Service) Tags(ctx context.Context, ws ID) ([]Lookup, error) {
	return s.store.Lookups(ctx, ws, LookupTag)
}

// Products lists the workspace's products sorted by label.
func (s *Service) Products(ctx context.Context, ws ID) ([]Lookup, error) {
	return s.store.Lookups(ctx, ws, LookupProduct)
}

// Users lists the workspace's users as lookups labelled by display name.
func (s *Service) Users(ctx context.Context, ws ID) ([]Lookup, error) {
	us, err := s.store.Users(ctx, ws)
	if err != nil {
		return nil, err
	}
	out := make([]Lookup, len(us))
	for i, u := range us {
		out[i] = Lookup{ID: u.ID, Label: u.Name}
	}
	return out, nil
}

// Checkpoint reads connector state ("" when none).
func (s *Service) Checkpoint(ctx context.Context, ws ID, name string) (string, error) {
	return s.store.Checkpoint(ctx, ws, name)
}

// SetCheckpoint writes connector state outside a record (e.g. after skipping an auto-reply).
func (s *Service) SetCheckpoint(ctx context.Context, ws ID, name, value string) error {
	return s.store.SetCheckpoint(ctx, ws, Checkpoint{Name: name, Value: value})
}

// ReportConnector records a connector's state for GET /api/connectors, and in Faults while it is failing:
// from an "error" until a real success clears its last error. A state on the way (a mailbox reconnecting)
// says nothing about the fault, so it keeps it; only a stopped entry, which fails no more, drops it.
// Refused items (st.Refused, added to the stored count) are no fault and never make the entry failing.
func (s *Service) ReportConnector(ctx context.Context, st ConnectorStatus) error {
	s.faults.Set(st.Kind+":"+st.Name, st.State == ConnectorError || (st.LastError != "" && st.State != ConnectorStopped))
	st.UpdatedAt = s.Now()
	return s.store.PutConnectorStatus(ctx, st)
}

// Sources is the set of source labels records may carry.
func (s *Service) Sources() *SourceSet { return s.sources }

// Faults is what this process knows is failing outside the store (see Faults).
func (s *Service) Faults() *Faults { return s.faults }

// Connectors lists the workspace's connector states, each with today's counts.
func (s *Service) Connectors(ctx context.Context, ws ID) ([]ConnectorStatus, error) {
	sts, err := s.store.ConnectorStatuses(ctx, ws)
	if err != nil || len(sts) == 0 {
		return sts, err
	}
	counts, err := s.connectorCountsToday(ctx, ws)
	if err != nil {
		return nil, err
	}
	for i := range sts {
		c := counts[sts[i].Name]
		sts[i].TakenToday, sts[i].RefusedToday = c.Taken, c.Refused
	}
	return sts, nil
}

// StartImport persists a new running import run.
func (s *Service) StartImport(ctx context.Context, ws ID, connector, file string) (ImportRun, error) {
	run := ImportRun{ID: NewID(), Workspace: ws, Connector: connector, File: file, Status: ImportRunning, StartedAt: s.Now()}
	return run, s.store.PutImportRun(ctx, run)
}

// FinishImport saves a run's counters; with a final status it also stamps the finish time.
func (s *Service) FinishImport(ctx context.Context, run ImportRun) error {
	if run.Status != ImportRunning && run.FinishedAt.IsZero() {
		run.FinishedAt = s.Now()
	}
	if run.Status == ImportRunning {
		return s.store.PutImportRun(ctx, run)
	}
	events, err := s.outbox(run.Workspace, EventImportFinished).ImportEvents(run)
	if err != nil {
		return err
	}
	return s.store.PutImportRun(ctx, run, events...)
}

// ImportRuns lists the workspace's import runs, newest first.
func (s *Service) ImportRuns(ctx context.Context, ws ID) ([]ImportRun, error) {
	return s.store.ImportRuns(ctx, ws)
}

// ImportRun returns one import run of the workspace.
func (s *Service) ImportRun(ctx context.Context, ws, id ID) (ImportRun, error) {
	return s.store.ImportRun(ctx, ws, id)
}

// KeepFailedRows keeps failed rows with a run, for download. A NUL, which PostgreSQL text cannot hold, is
// kept as U+FFFD, on every store alike.
func (s *Service) KeepFailedRows(ctx context.Context, ws, run ID, header []string, rows []FailedRow) error {
	clean := func(v string) string { return strings.ReplaceAll(v, "\x00", "\uFFFD") }
	h := make([]string, len(header))
	for i, c := range header {
		h[i] = clean(c)
	}
	out := make([]FailedRow, len(rows))
	for i, r := range rows {
		cells := make([]string, len(r.Cells))
		for j, c := range r.Cells {
			cells[j] = clean(c)
		}
		out[i] = FailedRow{Line: r.Line, Reason: clean(r.Reason), Cells: cells}
	}
	return s.store.KeepFailedRows(ctx, ws, run, h, out)
}

// FailedRows reads the failed rows kept with a run of the workspace.
func (s *Service) FailedRows(ctx context.Context, ws, run ID) (FailedRows, error) {
	return s.store.FailedRows(ctx, ws, run)
}

// ForgetFailedRows deletes the failed rows of the workspace's runs that started before t.
func (s *Service) ForgetFailedRows(ctx context.Context, ws ID, before time.Time) (int, error) {
	return s.store.ForgetFailedRows(ctx, ws, before)
}

// Insights returns a record's insights; ErrNotFound when the record is not the workspace's.
func (s *Service) Insights(ctx context.Context, ws, record ID) ([]Insight, error) {
	if _, err := s.store.Record(ctx, ws, record); err != nil {
		return nil, err
	}
	return s.store.Insights(ctx, ws, record)
}

// InsightsOf returns the insights of many records of ws at once, keyed by record id (a listing's page
// shows each row's first insight without a query per row); records of another workspace are absent.
func (s *Service) InsightsOf(ctx context.Context, ws ID, records []ID) (map[ID][]Insight, error) {
	if len(records) == 0 {
		return map[ID][]Insight{}, nil
	}
	return s.store.InsightsOf(ctx, ws, records)
}

// JobAttempts is how many attempts an insight job gets.
func (s *Service) JobAttempts() int { return s.attempts }
