package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	gomail "github.com/wneessen/go-mail"
)

// The SMTP tests talk to a real SMTP server (github.com/emersion/go-smtp)
// on 127.0.0.1. smtp:// is tested with STARTTLS and a self-signed
// certificate the client is made to trust, the way a real submission
// server is reached, rather than with AUTH over plain text: this client
// never sends a password without TLS, which its own test checks.

const (
	testUser = "cars@example.org"
	testPass = "s3cr3t-P@ss:word"
	// testPassInURL is testPass percent-encoded for the URL's userinfo.
	testPassInURL = "s3cr3t-P%40ss%3Aword"
)

type receivedMail struct {
	from     string
	to       []string
	data     []byte
	authUser string
	tls      bool
}

// smtpServer is an in-process SMTP server that records what it receives.
type smtpServer struct {
	addr string
	// rcptErr, when set, is the answer to RCPT TO.
	rcptErr error

	mu           sync.Mutex
	mails        []receivedMail
	authAttempts int
}

type smtpSession struct {
	srv  *smtpServer
	conn *smtp.Conn
	user string
	mail receivedMail
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		s.srv.mu.Lock()
		s.srv.authAttempts++
		s.srv.mu.Unlock()
		if user != testUser || pass != testPass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.user = user
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.mail = receivedMail{from: from}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.srv.rcptErr != nil {
		return s.srv.rcptErr
	}
	s.mail.to = append(s.mail.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.mail.data = data
	s.mail.authUser = s.user
	_, s.mail.tls = s.conn.TLSConnectionState()
	s.srv.mu.Lock()
	s.srv.mails = append(s.srv.mails, s.mail)
	s.srv.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.mail = receivedMail{} }
func (s *smtpSession) Logout() error { return nil }

// startSMTP starts a server. tlsConfig nil: no TLS at all; startTLS:
// STARTTLS offered on a plain listener; otherwise implicit TLS (smtps).
func startSMTP(tb testing.TB, tlsConfig *tls.Config, implicitTLS, insecureAuth bool) *smtpServer {
	tb.Helper()
	srv := &smtpServer{}
	s := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &smtpSession{srv: srv, conn: c}, nil
	}))
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.AllowInsecureAuth = insecureAuth
	s.ErrorLog = log.New(io.Discard, "", 0) // a refused certificate is expected
	var (
		l   net.Listener
		err error
	)
	if implicitTLS {
		l, err = tls.Listen("tcp", "127.0.0.1:0", tlsConfig)
	} else {
		s.TLSConfig = tlsConfig
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		tb.Fatal(err)
	}
	srv.addr = l.Addr().String()
	go func() { _ = s.Serve(l) }()
	tb.Cleanup(func() { _ = s.Close() })
	return srv
}

func (s *smtpServer) received() []receivedMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]receivedMail(nil), s.mails...)
}

func (s *smtpServer) auths() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authAttempts
}

// mustMailer makes a Mailer that trusts roots (nil: the system's).
func mustMailer(tb testing.TB, smtpURL string, roots *tls.Config) *Mailer {
	tb.Helper()
	m, err := NewMailer(smtpURL, "CarHub <cars@example.org>")
	if err != nil {
		tb.Fatal(err)
	}
	m.tlsConfig = roots
	return m
}

// mailParts reads a multipart/alternative message into its parts' bodies
// by content type.
func mailParts(tb testing.TB, msg *netmail.Message) map[string]string {
	tb.Helper()
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/alternative" {
		tb.Fatalf("Content-Type = %q, want multipart/alternative", msg.Header.Get("Content-Type"))
	}
	parts := map[string]string{}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextPart() // decodes quoted-printable itself
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		body, _ := io.ReadAll(p)
		if p.Header.Get("Content-Transfer-Encoding") == "base64" {
			body, _ = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(body)), ""))
		}
		ct, ctParams, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if !strings.EqualFold(ctParams["charset"], "utf-8") {
			tb.Errorf("part %s has charset %q, want UTF-8", ct, ctParams["charset"])
		}
		parts[ct] = string(body)
	}
	return parts
}

func TestMailerSendsOverTLS(t *testing.T) {
	serverTLS, pool := testCert(t)
	tests := []struct {
		name     string
		scheme   string
		implicit bool
	}{
		{"smtp with STARTTLS", "smtp", false},
		{"smtps", "smtps", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startSMTP(t, serverTLS, tt.implicit, false)
			m := mustMailer(t, fmt.Sprintf("%s://%s:%s@%s", tt.scheme, "cars%40example.org", testPassInURL, srv.addr), &tls.Config{RootCAs: pool})
			msg := Message{
				Title: "Ölwechsel ist überfällig - Škoda",
				Body:  "Due at 120 000 km or on 2026-06-01.\nCheck the <filter> too.\n\nSent by CarHub.",
				URL:   "https://cars.example.org/reminders/7?x=1&y=2",
			}
			if err := m.Send(context.Background(), "owner@example.net", msg); err != nil {
				t.Fatal(err)
			}
			got := srv.received()
			if len(got) != 1 {
				t.Fatalf("server got %d mails, want 1", len(got))
			}
			mail := got[0]
			if !mail.tls || mail.authUser != testUser {
				t.Errorf("tls = %v, user = %q; want TLS and %s", mail.tls, mail.authUser, testUser)
			}
			if mail.from != "cars@example.org" || len(mail.to) != 1 || mail.to[0] != "owner@example.net" {
				t.Errorf("envelope %s -> %v", mail.from, mail.to)
			}
			parsed, err := netmail.ReadMessage(bytes.NewReader(mail.data))
			if err != nil {
				t.Fatal(err)
			}
			subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
			if err != nil || subject != msg.Title {
				t.Errorf("Subject = %q (%v), want %q", subject, err, msg.Title)
			}
			from, _ := parsed.Header.AddressList("From")
			to, _ := parsed.Header.AddressList("To")
			if len(from) != 1 || from[0].Address != "cars@example.org" || from[0].Name != "CarHub" {
				t.Errorf("From = %v", from)
			}
			if len(to) != 1 || to[0].Address != "owner@example.net" {
				t.Errorf("To = %v", to)
			}
			for _, h := range []string{"Date", "Message-Id"} {
				if parsed.Header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
			if v := parsed.Header.Get("Auto-Submitted"); v != "auto-generated" {
				t.Errorf("Auto-Submitted = %q", v)
			}
			if v := parsed.Header.Get("User-Agent") + parsed.Header.Get("X-Mailer"); v != "" {
				t.Errorf("the mail names its library: %q", v)
			}
			parts := mailParts(t, parsed)
			text := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n")
			if want := msg.Body + "\n\n" + msg.URL + "\n"; text != want {
				t.Errorf("text part = %q, want %q", text, want)
			}
			html := strings.ReplaceAll(parts["text/html"], "\r\n", "\n")
			for _, want := range []string{
				"<h1 style=\"font-size: 1.25em\">Ölwechsel ist überfällig - Škoda</h1>",
				"Due at 120 000 km or on 2026-06-01.<br>\nCheck the &lt;filter&gt; too.</p>",
				"<p>Sent by CarHub.</p>",
				`<a href="https://cars.example.org/reminders/7?x=1&amp;y=2">`,
			} {
				if !strings.Contains(html, want) {
					t.Errorf("HTML part lacks %q:\n%s", want, html)
				}
			}
		})
	}
}

func TestMailerWithoutTLS(t *testing.T) {
	t.Run("no password: sent in plain text", func(t *testing.T) {
		srv := startSMTP(t, nil, false, false)
		m := mustMailer(t, "smtp://"+srv.addr, nil)
		if err := m.Send(context.Background(), "owner@example.net", Message{Title: "Test", Body: "Hello"}); err != nil {
			t.Fatal(err)
		}
		if got := srv.received(); len(got) != 1 || got[0].tls || got[0].authUser != "" {
			t.Fatalf("got %+v, want one mail without TLS or login", got)
		}
	})
	t.Run("a password is never sent without TLS", func(t *testing.T) {
		srv := startSMTP(t, nil, false, true) // offers AUTH PLAIN in clear text
		m := mustMailer(t, fmt.Sprintf("smtp://cars%%40example.org:%s@%s", testPassInURL, srv.addr), nil)
		err := m.Send(context.Background(), "owner@example.net", Message{Title: "Test"})
		if err == nil || !Permanent(err) {
			t.Fatalf("err = %v, want a permanent error", err)
		}
		assertNoPassword(t, err.Error())
		if n := srv.auths(); n != 0 {
			t.Errorf("the server saw %d login attempts, want none", n)
		}
		if n := len(srv.received()); n != 0 {
			t.Errorf("the server got %d mails", n)
		}
	})
}

func TestMailerFailures(t *testing.T) {
	serverTLS, pool := testCert(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	_ = closed.Close()

	tests := []struct {
		name      string
		rcptErr   error
		pass      string
		addr      string
		implicit  bool
		trust     bool
		permanent bool
	}{
		{name: "wrong password is 535", pass: "wrong%40pass", trust: true, permanent: true},
		{name: "recipient refused with 550", rcptErr: &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}, trust: true, permanent: true},
		{name: "recipient deferred with 451", rcptErr: &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}, trust: true},
		{name: "refused connection", addr: closedAddr, trust: true},
		{name: "untrusted certificate", implicit: true, permanent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startSMTP(t, serverTLS, tt.implicit, false)
			srv.rcptErr = tt.rcptErr
			addr, pass, scheme := srv.addr, testPassInURL, "smtp"
			if tt.addr != "" {
				addr = tt.addr
			}
			if tt.pass != "" {
				pass = tt.pass
			}
			if tt.implicit {
				scheme = "smtps"
			}
			var roots *tls.Config
			if tt.trust {
				roots = &tls.Config{RootCAs: pool}
			}
			m := mustMailer(t, fmt.Sprintf("%s://cars%%40example.org:%s@%s", scheme, pass, addr), roots)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := m.Send(ctx, "owner@example.net", Message{Title: "Test"})
			if err == nil {
				t.Fatal("Send succeeded")
			}
			t.Logf("error: %v", err)
			if Permanent(err) != tt.permanent {
				t.Errorf("Permanent(%v) = %v, want %v", err, !tt.permanent, tt.permanent)
			}
			assertNoPassword(t, err.Error())
		})
	}
	t.Run("bad recipient address", func(t *testing.T) {
		m := mustMailer(t, "smtp://127.0.0.1:1", nil)
		err := m.Send(context.Background(), "not an address", Message{Title: "Test"})
		if err == nil || !Permanent(err) {
			t.Fatalf("err = %v, want a permanent error", err)
		}
	})
}

func assertNoPassword(tb testing.TB, s string) {
	tb.Helper()
	for _, secret := range []string{testPass, testPassInURL, "s3cr3t", "wrong@pass", "wrong%40pass"} {
		if strings.Contains(s, secret) {
			tb.Errorf("%q contains the password (%q)", s, secret)
		}
	}
}

func TestNewMailer(t *testing.T) {
	tests := []struct {
		url, from   string
		wantErr     string
		host        string
		port        int
		implicitTLS bool
		user        string
	}{
		{url: "smtp://cars%40example.org:" + testPassInURL + "@mail.example.org", from: "cars@example.org", host: "mail.example.org", port: 587, user: "cars@example.org"},
		{url: "smtps://u:" + testPassInURL + "@mail.example.org", from: "cars@example.org", host: "mail.example.org", port: 465, implicitTLS: true, user: "u"},
		{url: "smtp://relay:25", from: "CarHub <cars@example.org>", host: "relay", port: 25},
		{url: "smtp://[::1]:2525/", from: "cars@example.org", host: "::1", port: 2525},
		{url: "", from: "cars@example.org", wantErr: "smtp://"},
		{url: "http://u:" + testPassInURL + "@mail.example.org", from: "cars@example.org", wantErr: "smtp:// or smtps://"},
		{url: "u:" + testPass + "@mail.example.org", from: "cars@example.org", wantErr: "not a URL"},
		{url: "smtp://u:s3cr3t pass@mail.example.org", from: "cars@example.org", wantErr: "not a URL"},
		{url: "smtp://u:s3cr3t%zz@mail.example.org", from: "cars@example.org", wantErr: "not a URL"},
		{url: "smtp://u:" + testPassInURL + "@mail.example.org:99999", from: "cars@example.org", wantErr: "port"},
		{url: "smtp://u:" + testPassInURL + "@mail.example.org:s3cr3t", from: "cars@example.org", wantErr: "not a URL"},
		{url: "smtp://u:" + testPassInURL + "@", from: "cars@example.org", wantErr: "no host"},
		{url: "smtp://:" + testPassInURL + "@mail.example.org", from: "cars@example.org", wantErr: "no user"},
		{url: "smtp://mail.example.org/s3cr3t", from: "cars@example.org", wantErr: "no path"},
		{url: "smtp://mail.example.org?password=s3cr3t", from: "cars@example.org", wantErr: "no path, query"},
		{url: "smtp://mail.example.org", from: "", wantErr: "sender address is empty"},
		{url: "smtp://mail.example.org", from: "not an address", wantErr: "not an e-mail address"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			m, err := NewMailer(tt.url, tt.from)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				assertNoPassword(t, err.Error())
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.host != tt.host || m.port != tt.port || m.implicitTLS != tt.implicitTLS || m.user != tt.user {
				t.Errorf("got %s:%d tls=%v user=%q, want %s:%d tls=%v user=%q", m.host, m.port, m.implicitTLS, m.user, tt.host, tt.port, tt.implicitTLS, tt.user)
			}
			if tt.user != "" && m.pass != testPass {
				t.Errorf("password not decoded: %q", m.pass)
			}
			var logged bytes.Buffer
			slog.New(slog.NewTextHandler(&logged, nil)).Info("mail", "mailer", m)
			for _, s := range []string{fmt.Sprint(m), fmt.Sprintf("%+v", m), fmt.Sprintf("%#v", m), fmt.Sprintf("%v", *m), logged.String()} {
				if tt.user != "" {
					assertNoPassword(t, s)
				}
			}
			if !strings.Contains(m.String(), tt.host) {
				t.Errorf("String() = %q, want the host", m.String())
			}
		})
	}
}

func TestMailPermanent(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("dial failed: %w", &textproto.Error{Code: 554, Msg: "no service"}), true},
		{fmt.Errorf("SMTP AUTH failed: %w", &textproto.Error{Code: 535, Msg: "bad credentials"}), true},
		{fmt.Errorf("dial failed: %w", &textproto.Error{Code: 421, Msg: "too busy"}), false},
		{fmt.Errorf("dial failed: %w", gomail.ErrNoSupportedAuthDiscovered), true},
		{errors.New("dial failed: server does not support SMTP AUTH"), true},
		{fmt.Errorf("dial failed: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")}), false},
		{fmt.Errorf("dial failed: %w", context.DeadlineExceeded), false},
	}
	for _, tt := range tests {
		if got := mailPermanent(tt.err); got != tt.want {
			t.Errorf("mailPermanent(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
