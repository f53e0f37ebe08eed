package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/feedbridge/feedbridge/connectors/slack"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
)

// Slack answers that no retry can change: the token or the person is the problem.
var slackPermanent = []string{"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired",
	"no_permission", "missing_scope", "user_not_found", "user_not_visible", "cannot_dm_bot", "invalid_arguments",
	"msg_too_long", "no_text", "restricted_action", "team_access_not_granted"}

// Slack answers about the saved message's channel or thread: the person still hears, by DM.
var slackNoThread = []string{"not_in_channel", "channel_not_found", "is_archived", "thread_not_found", "message_not_found"}

// postSlack writes n to its person: in the saved message's thread when there is one, else (or when that
// thread cannot take a reply) by DM.
func (nf *Notifier) postSlack(ctx context.Context, p slack.Poster, n core.Notice) error {
	token, err := p.Token.Value()
	if err != nil {
		return queueworker.Permanent(fmt.Errorf("notify: slack entry %q: bot_token: %w", n.Entry, err))
	}
	text := slackText(n)
	if n.Chat != "" && n.Thread != "" {
		code, err := nf.chatPost(ctx, p.APIURL, token, n.Chat, n.Thread, text)
		if err == nil || !slices.Contains(slackNoThread, code) {
			return err
		}
	}
	_, err = nf.chatPost(ctx, p.APIURL, token, n.User, "", text)
	return err
}

// chatPost calls chat.postMessage once and returns Slack's error code with the error.
func (nf *Notifier) chatPost(ctx context.Context, apiURL, token, channel, thread, text string) (string, error) {
	body, err := json.Marshal(struct {
		Channel     string `json:"channel"`
		Text        string `json:"text"`
		ThreadTS    string `json:"thread_ts,omitempty"`
		UnfurlLinks bool   `json:"unfurl_links"`
		UnfurlMedia bool   `json:"unfurl_media"`
	}{channel, text, thread, false, false})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, apiURL+"chat.postMessage", bytes.NewReader(body))
	if err != nil {
		return "", queueworker.Permanent(errors.New("notify: slack api_url is not a URL"))
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := nf.opts.HTTPClient.Do(req)
	if err != nil {
		// The error names the URL, never the header that holds the token.
		return "", fmt.Errorf("notify: slack chat.postMessage: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return "ratelimited", queueworker.RetryAfter(errors.New("notify: slack chat.postMessage: rate limited"),
			time.Duration(secs)*time.Second)
	case resp.StatusCode >= 500:
		return "", fmt.Errorf("notify: slack chat.postMessage: status %d", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return "", queueworker.Permanent(fmt.Errorf("notify: slack chat.postMessage: status %d", resp.StatusCode))
	}
	var ans struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return "", errors.New("notify: slack chat.postMessage: unreadable answer")
	}
	if ans.OK {
		return "", nil
	}
	err = fmt.Errorf("notify: slack chat.postMessage: %.100s", ans.Error)
	if slices.Contains(slackPermanent, ans.Error) {
		err = queueworker.Permanent(err)
	}
	return ans.Error, err
}
