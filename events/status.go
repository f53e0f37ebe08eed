package events

import (
	"context"
	"slices"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// RemovedNote is the last_error of a removed subscriber that still holds events.
const RemovedNote = "not in the configuration: its pending events are kept and not sent until it is configured again"

// Status lists the subscribers of ws, by name: each configured one with its queue's counts and the last
// result this replica saw, then each removed one that still holds pending events.
func (m *Manager) Status(ctx context.Context, ws core.ID) ([]core.SubscriberStatus, error) {
	m.mu.Lock()
	var mine []*runner
	configured := map[string]bool{}
	for name, r := range m.running {
		configured[name] = true
		if core.ID(r.entry.Workspace) == ws {
			mine = append(mine, r)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(mine, func(a, b *runner) int { return strings.Compare(a.entry.Name, b.entry.Name) })
	out := make([]core.SubscriberStatus, 0, len(mine))
	for _, r := range mine {
		st, err := m.opts.Queue.QueueStats(ctx, core.EventQueue(r.entry.Name))
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		s := core.SubscriberStatus{Name: r.entry.Name, URL: urlLabel(r.entry.URL), State: core.SubscriberOK,
			Pending: st.Pending, Failed: st.Failed, LastSuccessAt: r.lastSuccess, LastError: r.lastError, LastErrorAt: r.lastErrorAt}
		if r.failing {
			s.State = core.SubscriberFailing
		}
		r.mu.Unlock()
		out = append(out, s)
	}
	qs, err := m.opts.Queue.PendingQueues(ctx, core.EventKind, ws)
	if err != nil {
		return nil, err
	}
	for _, q := range qs {
		name := strings.TrimPrefix(q, core.EventQueue(""))
		if configured[name] {
			continue
		}
		st, err := m.opts.Queue.QueueStats(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, core.SubscriberStatus{Name: name, State: core.SubscriberRemoved, Pending: st.Pending,
			Failed: st.Failed, LastError: RemovedNote})
	}
	return out, nil
}
