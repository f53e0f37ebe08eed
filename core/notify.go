package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Closing the loop: when an Idea or Feature moves to a status the configuration names, the people who
// brought it or its linked feedback hear of it through the channel they used. The service decides that a
// move is due (Update sets RecordChange.Notify); the store reads who brought what, in the change's own
// transaction, and writes one queue item per person through NotifyPlan.Items, so that a move that rolls
// back sends nothing and one that commits is never lost.

// Origin is how a record came in, kept with the record at intake so that its people can be answered later.
// Only what an answer needs is kept: the Slack ids of the person and the saved message, or the email entry
// (the forwarder's address is the record's reporter and the customer its customer_email, which erasure
// already covers).
type Origin struct {
	Kind    string `json:"kind"`              // OriginSlack or OriginEmail
	Entry   string `json:"entry"`             // the connector entry's name
	User    string `json:"user,omitempty"`    // Slack: the person who ran the command or the shortcut
	Channel string `json:"channel,omitempty"` // Slack: the saved message's channel (shortcut only)
	Thread  string `json:"thread,omitempty"`  // Slack: the thread to reply in (the saved message's)
}

// Origin kinds.
const (
	OriginSlack = "slack"
	OriginEmail = "email"
)

// String is the stored form of o: "" for none.
func (o *Origin) String() string {
	if o == nil || o.Kind == "" {
		return ""
	}
	b, _ := json.Marshal(o) // strings only: cannot fail
	return string(b)
}

// ParseOrigin reads a stored origin; "" and anything unreadable are no origin.
func ParseOrigin(s string) (Origin, bool) {
	var o Origin
	if s == "" || json.Unmarshal([]byte(s), &o) != nil || o.Kind == "" {
		return Origin{}, false
	}
	return o, true
}

// NotifyKind is the queue item kind of closing-the-loop messages.
const NotifyKind = "notify"

// The queues of closing-the-loop messages, one per channel, so that a slow mail server never holds back
// Slack replies.
const (
	NotifyQueueSlack = "notify:slack"
	NotifyQueueEmail = "notify:email"
)

// NotifyStatuses are the statuses that tell the people who brought an idea, by default.
var NotifyStatuses = []string{"Planned", "In progress", "Done", "Released", "Declined"}

// NotifyPolicy is the `notify:` configuration as the service applies it.
type NotifyPolicy struct {
	Statuses     []string        // canonical status names that notify
	Customers    bool            // also write to the outside customer of an email submission
	Email        bool            // an SMTP server is configured
	SlackEntries map[string]bool // Slack entries that can post (they have a bot token), by name
	PublicURL    string          // the console's base URL; "" leaves the link out
	RetryFor     time.Duration   // how long a message that cannot be sent is retried; 0: DefaultRetryFor
}

// SetNotify replaces the closing-the-loop policy (at start and on reload); nil turns it off.
func (s *Service) SetNotify(p *NotifyPolicy) { s.notify.Store(p) }

// notifyPointer keeps the policy swappable without a lock on the write path.
type notifyPointer = atomic.Pointer[NotifyPolicy]

// notifyPlan is the plan of a status change of rec (before the change) to status, nil when nothing is due.
func (s *Service) notifyPlan(rec Record, status string) *NotifyPlan {
	p := s.notify.Load()
	if p == nil || status == rec.Status || (rec.Type != RecordIdea && rec.Type != RecordFeature) ||
		!slices.Contains(p.Statuses, status) {
		return nil
	}
	return &NotifyPlan{policy: *p, status: status}
}

// NotifyPlan is a due notification of one record's move, handed to the store with the change.
type NotifyPlan struct {
	policy NotifyPolicy
	status string
}

// NotifySource is one record that brought an idea (the idea itself or a linked feedback) as the store reads
// it: its stored origin, reporter and customer address.
type NotifySource struct {
	Record        ID
	Origin        string
	Reporter      string
	CustomerEmail string
}

// Notice is the body of a closing-the-loop queue item: whom to tell and what.
type Notice struct {
	Channel    string     `json:"channel"` // OriginSlack or OriginEmail
	Entry      string     `json:"entry,omitempty"`
	User       string     `json:"user,omitempty"`   // Slack: a DM to this user when Chat is empty
	Chat       string     `json:"chat,omitempty"`   // Slack: the channel of the saved message
	Thread     string     `json:"thread,omitempty"` // Slack: the thread to reply in
	To         string     `json:"to,omitempty"`     // email: the address
	Record     ID         `json:"record"`           // the idea or feature that moved
	RecordType RecordType `json:"record_type"`
	Title      string     `json:"title"`
	Status     string     `json:"status"`
	Link       string     `json:"link,omitempty"`
}

// Items are the queue items of the move of rec (as it is after the change) for the people of sources, one
// per person: a person who brought several of them hears once. The item id is derived from the workspace,
// the person, the record and the status, so the store can tell a message already sent from a new one.
func (p *NotifyPlan) Items(rec Record, sources []NotifySource) ([]QueueItem, error) {
	if p == nil {
		return nil, nil
	}
	link := ""
	if base := strings.TrimRight(p.policy.PublicURL, "/"); base != "" {
		link = base + "/records/" + string(rec.ID)
	}
	seen := map[ID]bool{}
	var out []QueueItem
	add := func(person string, n Notice, queue string) error {
		id := NotifyID(rec.Workspace, person, rec.ID, p.status)
		if seen[id] {
			return nil
		}
		seen[id] = true
		n.Record, n.RecordType, n.Title, n.Status, n.Link = rec.ID, rec.Type, rec.Title, p.status, link
		body, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("notify: %w", err)
		}
		out = append(out, QueueItem{ID: id, Queue: queue, Kind: NotifyKind, Workspace: rec.Workspace, Body: body,
			RetryFor: p.policy.RetryFor})
		return nil
	}
	for _, src := range sources {
		o, ok := ParseOrigin(src.Origin)
		if !ok {
			continue
		}
		switch o.Kind {
		case OriginSlack:
			if o.User == "" || !p.policy.SlackEntries[o.Entry] {
				continue
			}
			n := Notice{Channel: OriginSlack, Entry: o.Entry, User: o.User, Chat: o.Channel, Thread: o.Thread}
			if err := add("slack:"+o.Entry+":"+o.User, n, NotifyQueueSlack); err != nil {
				return nil, err
			}
		case OriginEmail:
			if !p.policy.Email {
				continue
			}
			to := []string{}
			if addr, err := ParseEmail(src.Reporter); err == nil {
				to = append(to, addr)
			}
			if c := src.CustomerEmail; p.policy.Customers && c != "" {
				to = append(to, c)
			}
			for _, addr := range to {
				if err := add("email:"+strings.ToLower(addr), Notice{Channel: OriginEmail, Entry: o.Entry, To: addr}, NotifyQueueEmail); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// NotifyID is the id of the message to person about record reaching status: the same person, record and
// status always give the same id.
func NotifyID(ws ID, person string, record ID, status string) ID {
	sum := sha256.Sum256([]byte(string(ws) + "\x00" + person + "\x00" + string(record) + "\x00" + status))
	return ID(hex.EncodeToString(sum[:12]))
}
