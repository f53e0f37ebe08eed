package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// outgoing escapes text we put into a Slack message, so a title such as "a <b>" shows as typed.
var outgoing = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// message is an ephemeral answer, as an HTTP response body or a response_url post.
type message struct {
	ResponseType    string `json:"response_type"`
	Text            string `json:"text"`
	ReplaceOriginal bool   `json:"replace_original"`
}

func ephemeral(text string) message { return message{ResponseType: "ephemeral", Text: text} }

// writeJSON answers 200 with v; Slack reads only 200 answers.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

// usage is the answer to an empty or "help" command.
func usage(command, kind string, modal bool) string {
	what := "customer feedback"
	if kind == kindIdea {
		what = "an idea"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` files %s in feedbridge.\n", command, what)
	fmt.Fprintf(&b, "• `%s Title | description`\n", command)
	fmt.Fprintf(&b, "• `%s jane@acme.com Title | description` (the first word, an email address, names the customer)\n", command)
	b.WriteString("• Without ` | `, the first line is the title and the following lines are the description.")
	if modal {
		fmt.Fprintf(&b, "\n• `%s` alone opens a form.", command)
	}
	return b.String()
}

// savedText names the record, its customer and its id.
func savedText(r core.Result) string {
	rec := r.Record
	verb := "Saved"
	if !r.Created {
		verb = "Already saved"
	}
	return fmt.Sprintf("%s %s “%s” %s · id `%s`", verb, rec.Type, outgoing.Replace(rec.Title), customerText(rec), rec.ID)
}

func customerText(rec core.Record) string {
	switch {
	case rec.Customer != "" && rec.CustomerEmail != "":
		return fmt.Sprintf("for %s (%s)", outgoing.Replace(rec.Customer), outgoing.Replace(rec.CustomerEmail))
	case rec.CustomerEmail != "":
		return "for " + outgoing.Replace(rec.CustomerEmail)
	}
	return "with no customer"
}

// failureText turns a save error into a sentence for the Slack user. fault is "" for the user's own
// mistakes (a title too long, the idea limit), which say nothing about the connector's health; otherwise it
// is the short text GET /api/connectors shows, free of SQL, paths and secrets.
func failureText(err error, log *logrus.Entry) (text, fault string) {
	var (
		invalid *core.ValidationError
		limit   *core.IdeaLimitError
	)
	switch {
	case errors.As(err, &invalid):
		return "Nothing was saved: " + outgoing.Replace(invalid.Message), ""
	case errors.As(err, &limit):
		return fmt.Sprintf("Nothing was saved: this feedbridge workspace has reached its idea limit (%d of %d on the %s plan). An admin can raise it.",
			limit.Used, limit.Limit, limit.Plan), ""
	case errors.Is(err, core.ErrIdeaLimit):
		return "Nothing was saved: this feedbridge workspace has reached its idea limit. An admin can raise it.", ""
	case errors.Is(err, core.ErrWorkspaceNotFound):
		return "Nothing was saved: the feedbridge workspace this Slack app feeds is suspended or gone. Please tell your feedbridge admin.", "workspace not found or suspended"
	}
	ref := string(core.NewID())
	log.WithError(err).WithField("error_id", ref).Error("slack: save failed")
	return fmt.Sprintf("feedbridge could not save this just now (reference %s). Please try again in a minute.", ref),
		"save failed (reference " + ref + ")"
}

// errRetryable marks a delivery failure worth another attempt.
var errRetryable = errors.New("retryable")

// postResponse delivers msg to a response_url, retrying network faults, 429 and 5xx. The URL itself is
// a credential for that conversation and is never logged.
func (s *Set) postResponse(ctx context.Context, responseURL string, msg message) error {
	if responseURL == "" {
		return errors.New("slack: no response_url")
	}
	if !underBase(responseURL, s.opts.responseBase) {
		// A signed payload still names this URL itself: posting anywhere else would let it aim the daemon
		// at internal addresses.
		return errors.New("slack: response_url refused: not a Slack hooks URL")
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err = s.postOnce(ctx, responseURL, body)
		if err == nil || !errors.Is(err, errRetryable) || attempt >= len(s.opts.retryDelays) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.opts.retryDelays[attempt]):
		}
	}
}

func (s *Set) postOnce(ctx context.Context, responseURL string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, responseURL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("slack: response_url: bad url")
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := s.opts.httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("slack: post response: %w", errRetryable)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("slack: post response: status %d: %w", resp.StatusCode, errRetryable)
	}
	return fmt.Errorf("slack: post response: status %d", resp.StatusCode)
}

// underBase reports whether raw is an absolute URL with base's scheme and host and a path under base's,
// without user information.
func underBase(raw, base string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	b, err := url.Parse(base)
	if err != nil {
		return false
	}
	return u.Scheme == b.Scheme && strings.EqualFold(u.Host, b.Host) && u.User == nil && u.Opaque == "" &&
		strings.HasPrefix(u.EscapedPath(), b.EscapedPath())
}
