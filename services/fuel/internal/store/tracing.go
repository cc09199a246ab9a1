package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/tracing"
)

// spans is a GORM plugin that puts every statement in a client span, a
// child of the request's span: "SELECT vehicles", with the database
// system, the operation, the table and the SQL text with its placeholders
// (never the values: they are the owner's data). gormConfig installs it
// only when tracing is on; off, GORM runs no callback of it.
//
// It is written here rather than taken from gorm.io/plugin/opentelemetry,
// whose tracing package imports the MySQL and ClickHouse drivers (for a
// server.address attribute), which would be built into this service.
type spans struct {
	tracer trace.Tracer
	known  *statements
}

func (spans) Name() string { return "carhub:tracing" }

// spanContext is the statement's context while its span is open; parent
// is put back when the statement is done, so a *gorm.DB reused for the
// next statement does not start it under this one.
type spanContext struct {
	context.Context
	parent context.Context
}

func (p spans) Initialize(db *gorm.DB) error {
	type registrar interface {
		Register(name string, fn func(*gorm.DB)) error
	}
	cb := db.Callback()
	for _, h := range []struct {
		before, after registrar
	}{
		{cb.Create().Before("gorm:create"), cb.Create().After("gorm:create")},
		{cb.Query().Before("gorm:query"), cb.Query().After("gorm:query")},
		{cb.Update().Before("gorm:update"), cb.Update().After("gorm:update")},
		{cb.Delete().Before("gorm:delete"), cb.Delete().After("gorm:delete")},
		{cb.Row().Before("gorm:row"), cb.Row().After("gorm:row")},
		{cb.Raw().Before("gorm:raw"), cb.Raw().After("gorm:raw")},
	} {
		if err := h.before.Register("carhub:span_start", p.start); err != nil {
			return err
		}
		if err := h.after.Register("carhub:span_end", p.end); err != nil {
			return err
		}
	}
	return nil
}

// clientKind is the statement span's one option, made once: an option
// value is an allocation.
var clientKind = trace.WithSpanKind(trace.SpanKindClient)

// start opens the statement's span, unless the request's span, started in
// this process, was not sampled: no sampler OTEL_TRACES_SAMPLER can name
// would sample the statement either (a parent-based one follows the
// parent, the ratio one decides by the same trace id, always_on samples
// every parent), so the span would cost its start and end for nothing. A
// statement outside a request (start-up, a backup) or right under a
// caller's span context gets its own, and the sampler decides.
func (p spans) start(tx *gorm.DB) {
	parent := tx.Statement.Context
	if ctx, ok := p.open(parent); ok {
		tx.Statement.Context = spanContext{Context: ctx, parent: parent}
	}
}

// open starts a statement's span under parent, unless start's rule says
// it would not be kept.
func (p spans) open(parent context.Context) (context.Context, bool) {
	if psc := trace.SpanContextFromContext(parent); psc.IsValid() && !psc.IsRemote() && !psc.IsSampled() {
		return parent, false
	}
	ctx, _ := p.tracer.Start(parent, "db", clientKind)
	return ctx, true
}

func (p spans) end(tx *gorm.DB) {
	sc, ok := tx.Statement.Context.(spanContext)
	if !ok {
		return
	}
	tx.Statement.Context = sc.parent
	p.close(sc.Context, tx.Statement.SQL.String(), tx.Statement.Table, tx.Dialector.Name(), tx.Error)
}

// close ends the span of ctx, named and described by the statement's
// text, table (GORM's, or "" to find it in the text) and database.
func (p spans) close(ctx context.Context, query, table, dialector string, err error) {
	span := trace.SpanFromContext(ctx)
	defer span.End()
	if !span.IsRecording() { // not sampled: nothing below would be kept
		return
	}
	st := p.known.summary(query, table)
	span.SetName(st.name)
	span.SetAttributes(
		attribute.String("db.system.name", dbSystem(dialector)),
		attribute.String("db.operation.name", st.operation),
		attribute.String("db.collection.name", st.table),
		attribute.String("db.query.text", query),
	)
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) && !errors.Is(err, sql.ErrNoRows) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}

// trace runs a statement that does not go through GORM (pgread.go) in a
// span of its own, as start and end do for GORM's; p may be nil (tracing
// off).
func (p *spans) trace(ctx context.Context, query string, run func(context.Context) error) error {
	if p == nil {
		return run(ctx)
	}
	sctx, ok := p.open(ctx)
	if !ok {
		return run(ctx)
	}
	err := run(sctx)
	p.close(sctx, query, "", "postgres", err)
	return err
}

// statement is what a span says of a statement besides its text.
type statement struct{ operation, table, name string }

// statements remembers the summary of each SQL text seen (with its
// placeholders, never values: a service runs a few dozen distinct ones).
// Hand-written statements carry no table for GORM to give, and scanning a
// long column list up to FROM for every statement cost as much CPU as
// ending the span; a lookup hashes the text instead. It stops remembering
// at maxStatements texts (IN lists of many lengths would make more) and
// scans those it has not kept.
type statements struct {
	m sync.Map // SQL text -> statement
	n atomic.Int64
}

const maxStatements = 1024

func (k *statements) summary(query, table string) statement {
	if table != "" { // GORM's statement: only the first word to read
		operation, _ := summary(query, table)
		return statement{operation: operation, table: table, name: operation + " " + table}
	}
	if v, ok := k.m.Load(query); ok {
		return v.(statement)
	}
	operation, tbl := summary(query, "")
	st := statement{operation: operation, table: tbl, name: operation}
	if tbl != "" {
		st.name += " " + tbl
	}
	if k.n.Load() < maxStatements {
		if _, loaded := k.m.LoadOrStore(query, st); !loaded {
			k.n.Add(1)
		}
	}
	return st
}

// summary names a statement's operation (its first keyword, after any
// comments) and table: GORM's when it knows it, else the first one the SQL
// names after FROM, INTO, UPDATE or TABLE outside parentheses (hand-written
// statements; a subquery's table is not the statement's). It
// scans words rather than running a regular expression, and stops at the
// table: it runs for every statement.
func summary(query, table string) (operation, tbl string) {
	pending := false // the word before was FROM, INTO, UPDATE or TABLE
	depth := 0       // parentheses open: a subquery's FROM is not the statement's
	for i := 0; ; {
		w, next := nextWord(query, i, &depth)
		if w == "" {
			break
		}
		i = next
		if operation == "" {
			operation = strings.ToUpper(w)
			if table != "" {
				break
			}
		}
		switch {
		case pending && (strings.EqualFold(w, "IF") || strings.EqualFold(w, "NOT") || strings.EqualFold(w, "EXISTS")):
		case pending && depth == 0:
			return operation, w
		default:
			pending = depth == 0 && (strings.EqualFold(w, "FROM") || strings.EqualFold(w, "INTO") ||
				strings.EqualFold(w, "UPDATE") || strings.EqualFold(w, "TABLE"))
		}
	}
	return operation, table
}

// nextWord returns the identifier or keyword at or after q[i:], skipping
// comments, quotes and punctuation, and where to go on; "" at the end. It
// counts the parentheses it passes in depth.
func nextWord(q string, i int, depth *int) (string, int) {
	for i < len(q) {
		switch c := q[i]; {
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return "", len(q)
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return "", len(q)
			}
			i += j + 4
		case isWordByte(c) && (c < '0' || c > '9'):
			j := i + 1
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			return q[i:j], j
		case isWordByte(c): // a number: skip it whole
			for i < len(q) && isWordByte(q[i]) {
				i++
			}
		case c == '(':
			*depth++
			i++
		case c == ')':
			*depth--
			i++
		default:
			i++
		}
	}
	return "", len(q)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// dbSystem is the semantic conventions' name of a GORM dialector's database.
func dbSystem(dialector string) string {
	if dialector == "postgres" {
		return "postgresql"
	}
	return dialector
}

// newSpans is the span plugin when tracing is on, else nil.
func newSpans() *spans {
	if !tracing.Enabled() {
		return nil
	}
	return &spans{tracer: tracing.Tracer(), known: &statements{}}
}

// plugins is a gorm.Config's Plugins: p's, when tracing is on.
func (p *spans) plugins() map[string]gorm.Plugin {
	if p == nil {
		return nil
	}
	return map[string]gorm.Plugin{p.Name(): *p}
}
