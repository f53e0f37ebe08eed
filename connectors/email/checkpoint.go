package email

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"

	"github.com/feedbridge/feedbridge/core"
)

// position is how far a mailbox has been read: every UID up to last, under this UIDVALIDITY, is done.
type position struct {
	uidValidity uint32
	last        imap.UID
}

// String encodes the position as the checkpoint value "v1:<uidvalidity>:<last uid>".
func (p position) String() string { return fmt.Sprintf("v1:%d:%d", p.uidValidity, p.last) }

// parsePosition decodes a checkpoint value; an empty or unreadable one starts from the beginning, which is
// safe because the Message-ID dedup key catches every message read before.
func parsePosition(v string) (position, bool) {
	parts := strings.Split(v, ":")
	if len(parts) != 3 || parts[0] != "v1" {
		return position{}, false
	}
	validity, err1 := strconv.ParseUint(parts[1], 10, 32)
	last, err2 := strconv.ParseUint(parts[2], 10, 32)
	if err1 != nil || err2 != nil {
		return position{}, false
	}
	return position{uidValidity: uint32(validity), last: imap.UID(last)}, true
}

// submission turns a parsed message into the record to create. The description is text a person typed, so
// the service must not read it as markup ("<jane@acme.com>" is an address, not a tag). The origin names the
// entry, so that the colleague who forwarded it (the reporter) can be told when its idea moves.
func submission(m Message, received time.Time, entry string) core.Submission {
	return core.Submission{
		Type:          core.RecordFeedback,
		Title:         m.Title,
		Description:   m.Description,
		PlainText:     true,
		CustomerEmail: m.CustomerEmail,
		CustomerName:  core.Truncate(m.CustomerName, core.MaxCustomerName, ""),
		Source:        "Email",
		Reporter:      m.Reporter,
		DedupKey:      m.DedupKey,
		CreatedAt:     received,
		Origin:        &core.Origin{Kind: core.OriginEmail, Entry: entry},
	}
}
