package insights

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OpenAIConfig configures the extractor for an OpenAI-compatible chat-completions endpoint (OpenAI itself,
// Azure-style gateways, Ollama, vLLM, LiteLLM …).
type OpenAIConfig struct {
	BaseURL string // up to the API version, e.g. "https://api.openai.com/v1"; /chat/completions is appended
	APIKey  string // sent as a Bearer token; may be empty for local servers
	Model   string
	// Timeout bounds one HTTP attempt (default 60s).
	Timeout time.Duration
	// MaxAttempts is how often one Extract call tries on 429, 5xx and network errors (default 4).
	MaxAttempts int
	// MaxRetryWait is the longest Retry-After waited for in-process (default 30s); a longer one ends the call
	// with a *TemporaryError so the queue reschedules the job instead of holding a worker.
	MaxRetryWait time.Duration
	// HTTPClient defaults to a client without its own timeout (Timeout applies per attempt).
	HTTPClient *http.Client
}

// OpenAI extracts insights with a chat model, asking for JSON that follows a strict schema.
type OpenAI struct {
	cfg      OpenAIConfig
	endpoint string
	// sleep waits between attempts; tests replace it to observe the waits without spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ Extractor = (*OpenAI)(nil)

// TemporaryError is a failure worth retrying later (over quota, endpoint down). RetryAfter is the wait the
// server asked for, 0 when it did not say; a queue should not retry sooner.
type TemporaryError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *TemporaryError) Error() string { return e.Err.Error() }
func (e *TemporaryError) Unwrap() error { return e.Err }

// NewOpenAI validates the configuration without touching the network.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	u, err := CheckBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("openai: base_url: %w", err)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("openai: model is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 4
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	return &OpenAI{cfg: cfg, endpoint: u.String(), sleep: sleepCtx}, nil
}

// CheckBaseURL parses an endpoint's base URL: https, or plain http only to a loopback address (a model on
// this machine). The API key and every record's text travel in the request, so anywhere else they must not
// cross the network in clear.
func CheckBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http":
		return nil, errors.New("must be an absolute https URL")
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return nil, errors.New("must be https (plain http only to a loopback address)")
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Name is the extractor's name as stored with each insight.
func (o *OpenAI) Name() string { return "openai" }

// Extract asks the model for the feedback's insights and normalizes them to the builtin's conventions:
// quotes are exact sentences of the input, themes normalized, tags only the workspace's own labels.
func (o *OpenAI) Extract(ctx context.Context, in Input) ([]Insight, error) {
	body, err := o.requestBody(in)
	if err != nil {
		return nil, err
	}
	var lastErr error
	var retryAfter time.Duration
	for attempt := 1; ; attempt++ {
		content, ra, err := o.post(ctx, body)
		if err == nil {
			return o.parse(content, in)
		}
		var temp *TemporaryError
		if !errors.As(err, &temp) || ctx.Err() != nil {
			return nil, err
		}
		lastErr, retryAfter = temp.Err, ra
		if attempt >= o.cfg.MaxAttempts || ra > o.cfg.MaxRetryWait {
			break
		}
		wait := ra
		if wait == 0 {
			wait = backoff(attempt)
		}
		if err := o.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("openai: waiting to retry: %w", err)
		}
	}
	return nil, &TemporaryError{RetryAfter: retryAfter, Err: lastErr}
}

// post makes one attempt. Retryable failures come back as *TemporaryError with the Retry-After it named.
func (o *OpenAI) post(ctx context.Context, body []byte) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, fmt.Errorf("openai: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.cfg.HTTPClient.Do(req)
	if err != nil {
		// url.Error repeats the URL, which may carry credentials; keep only its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, 0, &TemporaryError{Err: o.redact(fmt.Errorf("openai: post chat completions: %w", err))}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, 0, &TemporaryError{Err: o.redact(fmt.Errorf("openai: read response: %w", err))}
	}
	if resp.StatusCode == http.StatusOK {
		return raw, 0, nil
	}
	err = o.redact(fmt.Errorf("openai: chat completions answered %d: %s", resp.StatusCode, snippet(raw)))
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		ra := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return nil, ra, &TemporaryError{RetryAfter: ra, Err: err}
	}
	return nil, 0, err
}

// redact removes the API key from an error text, in case a server or proxy echoes it back.
func (o *OpenAI) redact(err error) error {
	if o.cfg.APIKey == "" || !strings.Contains(err.Error(), o.cfg.APIKey) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), o.cfg.APIKey, "***")}
}

// redactedError deliberately does not unwrap: the wrapped error's text is the one that held the secret.
type redactedError struct{ msg string }

func (e *redactedError) Error() string { return e.msg }

// snippet is the start of an error body, on one line, for the error message.
func snippet(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 200 {
		s = truncate(s, 200)
	}
	return s
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// backoff is exponential from 500ms with ±20% jitter, so replicas that failed together do not retry together.
func backoff(attempt int) time.Duration {
	d := 500 * time.Millisecond << min(attempt-1, 6)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
