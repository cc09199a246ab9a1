package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	netmail "net/mail"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
)

// Mail is sent with github.com/wneessen/go-mail: STARTTLS when the server
// offers it, implicit TLS for smtps://, and SMTP AUTH by the strongest
// mechanism the server offers (SMTPAuthAutoDiscover), which never sends a
// PLAIN or LOGIN password over a connection that is not encrypted: a server
// that offers no STARTTLS gets no password (configure it without one, or
// with TLS).

// Default ports: submission with STARTTLS, and submissions (implicit TLS).
const (
	defaultSMTPPort  = 587
	defaultSMTPSPort = 465
)

// mailTimeout bounds one delivery's conversation when ctx sets no sooner
// deadline.
const mailTimeout = 30 * time.Second

// urlForm is said in every error about the SMTP URL, which itself is never
// repeated: it holds the password.
const urlForm = "the form is smtp://user:password@host:port (STARTTLS when offered) or smtps://user:password@host:port (TLS), with special characters in the user and password percent-encoded"

// Mailer sends e-mail through one SMTP server. It is safe for concurrent
// use: each Send has its own connection.
type Mailer struct {
	host        string
	port        int
	implicitTLS bool
	user, pass  string
	from        string
	// tlsConfig, when set, replaces the system's roots (tests trust their
	// own certificate authority); ServerName is always the host.
	tlsConfig *tls.Config
}

// NewMailer reads SMTP_URL and the sender address (NOTIFY_FROM, which may
// carry a name: "CarHub <cars@example.org>"). The port defaults to 587 for
// smtp:// and 465 for smtps://. Errors never repeat the URL.
func NewMailer(smtpURL, from string) (*Mailer, error) {
	u, err := url.Parse(strings.TrimSpace(smtpURL))
	if err != nil || u.Opaque != "" {
		return nil, errors.New("SMTP URL is not a URL: " + urlForm)
	}
	m := &Mailer{host: u.Hostname()}
	switch u.Scheme {
	case "smtp":
		m.port = defaultSMTPPort
	case "smtps":
		m.port, m.implicitTLS = defaultSMTPSPort, true
	default:
		return nil, errors.New("SMTP URL must start with smtp:// or smtps://: " + urlForm)
	}
	if m.host == "" {
		return nil, errors.New("SMTP URL has no host: " + urlForm)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, errors.New("SMTP URL's port must be a number from 1 to 65535")
		}
		m.port = n
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("SMTP URL takes no path, query or fragment: " + urlForm)
	}
	if u.User != nil {
		m.user = u.User.Username()
		m.pass, _ = u.User.Password()
		if m.user == "" {
			return nil, errors.New("SMTP URL has a password but no user: " + urlForm)
		}
	}
	if strings.TrimSpace(from) == "" {
		return nil, errors.New("the sender address is empty")
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("the sender address %q is not an e-mail address", from)
	}
	m.from = from
	return m, nil
}

// String shows the server without the password, for logs. It and
// GoString and LogValue have value receivers so that a Mailer printed by
// value hides the password too.
func (m Mailer) String() string {
	scheme, user := "smtp", ""
	if m.implicitTLS {
		scheme = "smtps"
	}
	if m.user != "" {
		user = url.User(m.user).String() + "@"
	}
	return fmt.Sprintf("%s://%s%s:%d from %s", scheme, user, m.host, m.port, m.from)
}

// GoString is String for %#v, which would print the password field.
func (m Mailer) GoString() string { return m.String() }

// LogValue is String for log/slog.
func (m Mailer) LogValue() slog.Value { return slog.StringValue(m.String()) }

// Send mails msg to one address: Subject msg.Title, a text part and an HTML
// part of msg.Body with msg.URL as a link. An SMTP 5xx reply (a refused
// recipient, a failed login) and a bad address are Permanent; a 4xx reply,
// a refused connection and a timeout are not.
func (m *Mailer) Send(ctx context.Context, to string, msg Message) error {
	em, err := m.message(to, msg)
	if err != nil {
		return permanent(fmt.Errorf("mail: %w", err))
	}
	timeout := mailTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = max(time.Until(d), time.Millisecond)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if m.tlsConfig != nil {
		tlsConfig = m.tlsConfig.Clone()
	}
	tlsConfig.ServerName = m.host
	opts := []mail.Option{
		mail.WithPort(m.port),
		mail.WithTimeout(timeout),
		mail.WithTLSConfig(tlsConfig),
	}
	if m.implicitTLS {
		opts = append(opts, mail.WithSSL())
	} else {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	if m.user != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover),
			mail.WithUsername(m.user), mail.WithPassword(m.pass))
	}
	client, err := mail.NewClient(m.host, opts...)
	if err != nil {
		return permanent(fmt.Errorf("mail via %s:%d: %w", m.host, m.port, err))
	}
	if err := client.DialAndSendWithContext(ctx, em); err != nil {
		err = fmt.Errorf("mail via %s:%d: %w", m.host, m.port, err)
		if mailPermanent(err) {
			return permanent(err)
		}
		return err
	}
	return nil
}

// message builds the e-mail.
func (m *Mailer) message(to string, msg Message) (*mail.Msg, error) {
	em := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := em.From(m.from); err != nil {
		return nil, fmt.Errorf("the sender address %q is not an e-mail address", m.from)
	}
	if _, err := netmail.ParseAddress(to); err != nil || em.To(to) != nil {
		return nil, fmt.Errorf("the recipient address %q is not an e-mail address", to)
	}
	em.Subject(oneLine(msg.Title))
	// RFC 3834: no vacation responder answers a reminder.
	em.SetGenHeader("Auto-Submitted", "auto-generated")
	em.SetBodyString(mail.TypeTextPlain, mailText(msg))
	html, err := mailHTML(msg)
	if err != nil {
		return nil, err
	}
	em.AddAlternativeString(mail.TypeTextHTML, html)
	return em, nil
}

// mailPermanent tells whether an SMTP failure cannot be mended by trying
// again: a 5xx reply (RFC 5321 4.2.1: "the SMTP client SHOULD NOT repeat
// the exact request"), a sender or recipient the library refused, or a
// server that offers no mechanism to send the password by.
func mailPermanent(err error) bool {
	var se *mail.SendError
	if errors.As(err, &se) {
		switch se.Reason {
		case mail.ErrGetSender, mail.ErrGetRcpts, mail.ErrNoUnencoded:
			return true
		}
		return se.ErrorCode() >= 500 && se.ErrorCode() < 600
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code >= 500 && te.Code < 600
	}
	return errors.Is(err, mail.ErrNoSupportedAuthDiscovered) ||
		strings.Contains(err.Error(), "server does not support SMTP AUTH")
}

// oneLine keeps a header value on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// mailText is the text part: the body, then the link.
func mailText(msg Message) string {
	text := strings.TrimSpace(msg.Body)
	if msg.URL != "" {
		text += "\n\n" + msg.URL
	}
	return text + "\n"
}

// mailTemplate is the HTML part. html/template escapes the text and
// refuses a URL that is not http(s) in href.
var mailTemplate = template.Must(template.New("mail").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family: sans-serif; line-height: 1.4">
<h1 style="font-size: 1.25em">{{.Title}}</h1>
{{range .Paragraphs}}<p>{{range $i, $line := .}}{{if $i}}<br>
{{end}}{{$line}}{{end}}</p>
{{end}}{{with .URL}}<p><a href="{{.}}">{{.}}</a></p>
{{end}}</body></html>
`))

// mailHTML is the HTML part: the body's paragraphs (blank-line separated)
// with their line breaks, and the link.
func mailHTML(msg Message) (string, error) {
	var paragraphs [][]string
	for p := range strings.SplitSeq(strings.ReplaceAll(strings.TrimSpace(msg.Body), "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			paragraphs = append(paragraphs, strings.Split(p, "\n"))
		}
	}
	var b bytes.Buffer
	err := mailTemplate.Execute(&b, struct {
		Title      string
		Paragraphs [][]string
		URL        string
	}{msg.Title, paragraphs, msg.URL})
	return b.String(), err
}
