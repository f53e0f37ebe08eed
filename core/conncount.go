package core

import (
	"context"
	"sync"
)

// ConnectorCount is how many items a connector entry took (records it wrote) and refused (input it turned
// away: unreadable or unauthenticated requests, bad rows, automatic mail) on one UTC day.
type ConnectorCount struct {
	Workspace ID
	Name      string
	Day       int64 // EpochDay
	Taken     int
	Refused   int
}

type countKey struct {
	ws   ID
	name string
	day  int64
}

// connectorTally holds the counts not yet written: counting is in memory, because a store write per item
// would double the cost of taking it; FlushConnectorCounts writes the sums.
type connectorTally struct {
	mu      sync.Mutex
	pending map[countKey]ConnectorCount
}

// CountConnector adds to today's counts of a connector entry (name is unique in its workspace).
func (s *Service) CountConnector(ws ID, name string, taken, refused int) {
	if taken == 0 && refused == 0 {
		return
	}
	s.CountConnectorOn(ConnectorCount{Workspace: ws, Name: name, Day: EpochDay(s.Now()), Taken: taken, Refused: refused})
}

// FlushConnectorCounts adds the counts gathered since the last flush to the store's; when the store fails
// they are kept for the next flush.
func (s *Service) FlushConnectorCounts(ctx context.Context) error {
	t := &s.tally
	t.mu.Lock()
	batch := make([]ConnectorCount, 0, len(t.pending))
	for _, c := range t.pending {
		batch = append(batch, c)
	}
	t.pending = nil
	t.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := s.store.AddConnectorCounts(ctx, batch); err != nil {
		for _, c := range batch {
			s.CountConnectorOn(c)
		}
		return err
	}
	return nil
}

// CountConnectorOn adds c to the pending counts of its own day.
func (s *Service) CountConnectorOn(c ConnectorCount) {
	k := countKey{c.Workspace, c.Name, c.Day}
	t := &s.tally
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil {
		t.pending = map[countKey]ConnectorCount{}
	}
	p := t.pending[k]
	p.Workspace, p.Name, p.Day = c.Workspace, c.Name, c.Day
	p.Taken += c.Taken
	p.Refused += c.Refused
	t.pending[k] = p
}

// connectorCountsToday is the store's counts of ws for today plus what this process has not written yet.
func (s *Service) connectorCountsToday(ctx context.Context, ws ID) (map[string]ConnectorCount, error) {
	day := EpochDay(s.Now())
	stored, err := s.store.ConnectorCounts(ctx, ws, day)
	if err != nil {
		return nil, err
	}
	out := map[string]ConnectorCount{}
	for _, c := range stored {
		out[c.Name] = c
	}
	s.tally.mu.Lock()
	defer s.tally.mu.Unlock()
	for k, c := range s.tally.pending {
		if k.ws == ws && k.day == day {
			o := out[k.name]
			o.Taken += c.Taken
			o.Refused += c.Refused
			out[k.name] = o
		}
	}
	return out, nil
}
