package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"time"
)

// urlLabel shows a URL without credentials or query, which may carry tokens: for runs, logs and errors.
func urlLabel(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// urlFileName names the file behind a URL ("export.csv"), or falls back to the entry's name.
func urlFileName(u *url.URL, fallback string) string {
	if b := path.Base(u.Path); b != "" && b != "/" && b != "." {
		return b
	}
	return fallback + ".csv"
}

var errIdle = errors.New("no data received within the timeout")

// fetch starts a GET and returns the body, capped at maxBytes and cancelled when idle for longer than
// idle. The caller closes it.
func fetch(ctx context.Context, client *http.Client, u *url.URL, headers map[string]string, idle time.Duration, maxBytes int64) (io.ReadCloser, error) {
	label := urlLabel(u)
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(idle, func() { cancel(errIdle) })
	fail := func(err error) (io.ReadCloser, error) {
		timer.Stop()
		cancel(nil)
		return nil, fmt.Errorf("fetch %s: %w", label, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail(errors.New("bad request"))
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) { // its text repeats the URL, query and all
			err = uerr.Err
		}
		if c := context.Cause(ctx); c == errIdle {
			err = c
		}
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fail(fmt.Errorf("server answered %s", resp.Status))
	}
	if resp.ContentLength > maxBytes {
		resp.Body.Close()
		return fail(fmt.Errorf("response of %d bytes is over max_bytes (%d)", resp.ContentLength, maxBytes))
	}
	return &body{rc: resp.Body, ctx: ctx, cancel: cancel, timer: timer, idle: idle, left: maxBytes, max: maxBytes, label: label}, nil
}

// body is a response body that enforces the size cap and the idle timeout while it is read.
type body struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
	left   int64
	max    int64
	label  string
}

func (b *body) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	b.left -= int64(n)
	if b.left < 0 {
		return 0, fmt.Errorf("fetch %s: response is over max_bytes (%d)", b.label, b.max)
	}
	if err != nil && context.Cause(b.ctx) == errIdle {
		// Checked on io.EOF too: a cancelled stream may end as if the server had finished it.
		return n, fmt.Errorf("fetch %s: %w", b.label, errIdle)
	}
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("fetch %s: %w", b.label, err)
	}
	return n, err
}

func (b *body) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel(nil)
	return err
}
