package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/smtp"
	"net/textproto"
	"os"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
	"github.com/feedbridge/feedbridge/internal/safenet"
)

// sendMail sends n as one email through the configured server: TLS from the start (security tls) or
// after STARTTLS (refused when the server does not offer it), then PLAIN authentication when a username
// is set. The connection goes through the private-address-refusing dialer unless allow_private.
func (nf *Notifier) sendMail(ctx context.Context, m config.NotifySMTP, id string, n core.Notice) error {
	host, _, err := net.SplitHostPort(m.Server)
	if err != nil {
		return queueworker.Permanent(fmt.Errorf("notify: smtp server %q is not host:port", m.Server))
	}
	msg, err := nf.message(m.From, id, n)
	if err != nil {
		return queueworker.Permanent(err)
	}
	conn, err := safenet.Dialer(m.AllowPrivate).DialContext(ctx, "tcp", m.Server)
	if err != nil {
		return fmt.Errorf("notify: smtp: %w", err)
	}
	defer conn.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	tc := nf.tlsConfig(host)
	if m.Security == "tls" {
		t := tls.Client(conn, tc)
		if err := t.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("notify: smtp tls: %w", err)
		}
		conn = t
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return smtpErr("greeting", err)
	}
	defer c.Close()
	if err := c.Hello(heloName(m.From)); err != nil {
		return smtpErr("ehlo", err)
	}
	if m.Security == "starttls" {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return queueworker.Permanent(errors.New("notify: smtp server does not offer STARTTLS"))
		}
		if err := c.StartTLS(tc); err != nil {
			return fmt.Errorf("notify: smtp starttls: %w", err)
		}
	}
	if m.Username != "" {
		password, err := m.Password.Value()
		if err != nil {
			return queueworker.Permanent(fmt.Errorf("notify: smtp password: %w", err))
		}
		if err := c.Auth(smtp.PlainAuth("", m.Username, password, host)); err != nil {
			return smtpErr("auth", err)
		}
	}
	if err := c.Mail(m.From); err != nil {
		return smtpErr("mail from", err)
	}
	if err := c.Rcpt(n.To); err != nil {
		return smtpErr("rcpt to", err)
	}
	w, err := c.Data()
	if err != nil {
		return smtpErr("data", err)
	}
	if _, err := w.Write(msg); err != nil {
		return smtpErr("data", err)
	}
	if err := w.Close(); err != nil {
		return smtpErr("data", err)
	}
	_ = c.Quit() // the message is accepted; a lost goodbye changes nothing
	return nil
}

// heloName is the name this client greets with: the host's name when it is a full one, else the sender's
// domain, since servers that check the greeting refuse a bare "localhost".
func heloName(from string) string {
	if h, err := os.Hostname(); err == nil && strings.Contains(h, ".") {
		return h
	}
	if _, domain, ok := strings.Cut(from, "@"); ok && domain != "" {
		return domain
	}
	return "localhost"
}

func (nf *Notifier) tlsConfig(host string) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if nf.opts.TLS != nil {
		c = nf.opts.TLS.Clone()
	}
	c.ServerName = host
	return c
}

// smtpErr keeps the server's answer: a 5xx reply is permanent (the address or the credentials are refused),
// anything else is worth another try.
func smtpErr(step string, err error) error {
	err = fmt.Errorf("notify: smtp %s: %w", step, err)
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return queueworker.Permanent(err)
	}
	return err
}

// message is the whole email: plain text, quoted-printable, marked as automatic so that autoresponders
// (and feedbridge's own inbox) leave it alone. The Message-ID comes from the queue item, so a message sent
// twice after a crash carries the same id.
func (nf *Notifier) message(from, id string, n core.Notice) ([]byte, error) {
	if strings.ContainsAny(from+n.To, "\r\n") {
		return nil, errors.New("notify: address with a line break")
	}
	_, domain, _ := strings.Cut(from, "@")
	var b bytes.Buffer
	h := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	h("From", from)
	h("To", n.To)
	h("Subject", mime.QEncoding.Encode("utf-8", mailSubject(n)))
	h("Date", nf.opts.Now().UTC().Format(time.RFC1123Z))
	h("Message-ID", "<"+id+"@"+domain+">")
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	h("Auto-Submitted", "auto-generated")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(mailBody(n), "\n", "\r\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
