package webhook

import (
	"context"
	"fmt"
	"reflect"

	"github.com/feedbridge/feedbridge/connectors"
)

// Update takes over next's entries (connectors.Updater): an entry whose configuration is unchanged keeps
// running as it is (its worker, its wake-up, its status row); a removed or changed one stops and reports
// stopped; an added or changed one starts. Requests already being served finish with the entry they found.
func (s *Set) Update(ctx context.Context, next connectors.Set) (started, stopped []string, err error) {
	n, ok := next.(*Set)
	if !ok {
		return nil, nil, fmt.Errorf("webhook: update with a %T", next)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, nt := s.table.Load(), n.table.Load()
	merged := &entryTable{byName: map[string]*entry{}}
	for _, en := range nt.order {
		if cur := old.byName[en.Name]; cur != nil && cur.ws == en.ws && reflect.DeepEqual(cur.Config, en.Config) {
			en = cur
		} else {
			started = append(started, en.Name)
		}
		merged.byName[en.Name] = en
		merged.order = append(merged.order, en)
	}
	for _, en := range old.order {
		if merged.byName[en.Name] == en {
			continue
		}
		stopped = append(stopped, en.Name)
		if w := s.workers[en.Name]; w != nil {
			w.cancel()
			<-w.done
			delete(s.workers, en.Name)
		}
		if err := s.board.Remove(ctx, en.Name, connectors.StateStopped); err != nil {
			en.log.WithError(err).Warn("webhook: report connector status")
		}
		en.log.Info("webhook: stopped listening on /hooks/" + en.Name)
	}
	s.table.Store(merged)
	for _, name := range started {
		en := merged.byName[name]
		s.board.Add(name, en.ws)
		s.startWorker(en)
	}
	if len(started) > 0 && s.runCtx != nil {
		s.flush(ctx, connectors.StateRunning, false)
	}
	return started, stopped, nil
}
