package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/pkg/tracing/otlptest"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestStatementSpans: with tracing on, each statement is a client span
// under the caller's span, named by operation and table, carrying the SQL
// with placeholders and never the values.
func TestStatementSpans(t *testing.T) {
	rcv := traced(t)

	for _, tt := range []struct {
		dialect Dialect
		system  string
	}{{Postgres, "postgresql"}, {SQLite, "sqlite"}} {
		t.Run(string(tt.dialect), func(t *testing.T) {
			s := MustOpen(t, tt.dialect)
			before := time.Now()
			ctx, parent := tracing.Tracer().Start(context.Background(), "request")
			v := fuel.Vehicle{Name: "Secret Plate Car", FuelType: "gasoline"}
			if err := s.CreateVehicle(ctx, &v); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Vehicle(ctx, v.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Vehicle(ctx, v.ID+1000); !errors.Is(err, fuel.ErrVehicleNotFound) {
				t.Fatalf("missing vehicle: %v", err)
			}
			parent.End()
			after := time.Now()
			traceID := parent.SpanContext().TraceID().String()
			spanID := parent.SpanContext().SpanID().String()

			spans := rcv.WaitTrace(t, traceID, 10*time.Second, func(s []otlptest.Span) bool {
				n := 0
				for _, sp := range s {
					if sp.Name == "SELECT vehicles" {
						n++
					}
				}
				return n >= 2
			})
			var selects, inserts int
			var statements []otlptest.Span
			for _, sp := range spans {
				if sp.Name == "request" {
					continue
				}
				statements = append(statements, sp)
				// Made whole at the statement's end, with the time it began.
				if sp.Start.Before(before) || !sp.End.After(sp.Start) || sp.End.After(after) {
					t.Errorf("span %q from %s to %s, want within %s to %s, ending after it starts", sp.Name, sp.Start, sp.End, before, after)
				}
				if sp.ParentSpanID != spanID || sp.Kind != "client" || sp.Attrs["db.system.name"] != tt.system {
					t.Errorf("statement span %v %v: want a client span of %s under %s", sp, sp.Attrs, tt.system, spanID)
				}
				if strings.Contains(sp.Attrs["db.query.text"], "Secret Plate") {
					t.Errorf("span %q carries a value: %s", sp.Name, sp.Attrs["db.query.text"])
				}
				if sp.Error {
					t.Errorf("span %q is an error (a record not found is not)", sp.Name)
				}
				switch sp.Name {
				case "SELECT vehicles":
					selects++
					if sp.Attrs["db.collection.name"] != "vehicles" || !strings.HasPrefix(sp.Attrs["db.query.text"], "SELECT") {
						t.Errorf("select span attributes %v", sp.Attrs)
					}
				case "INSERT vehicles":
					inserts++
				}
			}
			// The statements ran one after the other: so do their spans.
			slices.SortFunc(statements, func(a, b otlptest.Span) int { return a.Start.Compare(b.Start) })
			for i := 1; i < len(statements); i++ {
				if statements[i].Start.Before(statements[i-1].End) {
					t.Errorf("span %q starts at %s, before %q ends at %s", statements[i].Name, statements[i].Start, statements[i-1].Name, statements[i-1].End)
				}
			}
			if selects != 2 || inserts != 1 {
				t.Errorf("%d SELECT and %d INSERT spans of vehicles, want 2 and 1: %v", selects, inserts, spans)
			}
		})
	}
}

func TestNoStatementSpansWhenTracingIsOff(t *testing.T) {
	if tracing.Enabled() {
		t.Fatal("tracing is on before the test")
	}
	s := MustOpen(t, SQLite)
	for name, db := range map[string]map[string]any{"read": pluginNames(s.read.Plugins), "write": pluginNames(s.write.Plugins)} {
		if len(db) != 0 {
			t.Errorf("%s handle has plugins %v with tracing off", name, db)
		}
	}
}

// TestUnsampledStatementsCostNoSummary: a statement whose span is not
// sampled (its request's is not) skips naming and describing the span, so
// its text is neither copied nor remembered; a sampled one is.
func TestUnsampledStatementsCostNoSummary(t *testing.T) {
	for _, tt := range []struct {
		sampler    string
		remembered bool
	}{{"always_off", false}, {"always_on", true}} {
		t.Run(tt.sampler, func(t *testing.T) {
			t.Setenv("OTEL_TRACES_SAMPLER", tt.sampler)
			traced(t)
			s := MustOpen(t, SQLite)
			v := fuel.Vehicle{Name: "car", FuelType: "gasoline"}
			if err := s.CreateVehicle(context.Background(), &v); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Vehicle(context.Background(), v.ID); err != nil {
				t.Fatal(err)
			}
			p, ok := s.read.Plugins[spans{}.Name()].(spans)
			if !ok {
				t.Fatalf("read handle plugins %v: no statement spans", pluginNames(s.read.Plugins))
			}
			if got := p.known.n.Load() > 0; got != tt.remembered {
				t.Errorf("%d statements remembered with %s, want some: %v", p.known.n.Load(), tt.sampler, tt.remembered)
			}
		})
	}
}

// TestStatementUnderUnsampledRequestStartsNoSpan: a statement of a
// request whose span (started here) is not sampled runs in the request's
// span, as no sampler would sample its own. Under a sampled span, right
// under a caller's span context, or with no span at all, it gets a span of
// its own and the sampler (the default, parent-based) decides.
func TestStatementUnderUnsampledRequestStartsNoSpan(t *testing.T) {
	traced(t)
	s := MustOpen(t, SQLite)
	v := fuel.Vehicle{Name: "car", FuelType: "gasoline"}
	if err := s.CreateVehicle(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	// The span each statement runs in, as the next callback sees it.
	type seenSpan struct {
		sc        trace.SpanContext
		recording bool
	}
	var seen []seenSpan
	capture := func(tx *gorm.DB) {
		sp := trace.SpanFromContext(tx.Statement.Context)
		seen = append(seen, seenSpan{sp.SpanContext(), sp.IsRecording()})
	}
	cb := s.read.Callback()
	for _, r := range []interface {
		Register(string, func(*gorm.DB)) error
	}{
		cb.Query().After("carhub:span_start").Before("gorm:query"),
		cb.Row().After("carhub:span_start").Before("gorm:row"),
		cb.Raw().After("carhub:span_start").Before("gorm:raw"),
	} {
		if err := r.Register("test:capture", capture); err != nil {
			t.Fatal(err)
		}
	}

	remote := func(flags trace.TraceFlags) context.Context {
		return trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: flags, Remote: true,
		}))
	}
	request := func(parent context.Context) context.Context {
		ctx, span := tracing.Tracer().Start(parent, "GET /api/vehicles/:id", trace.WithSpanKind(trace.SpanKindServer))
		t.Cleanup(func() { span.End() })
		return ctx
	}
	for _, tt := range []struct {
		name      string
		ctx       context.Context
		ownSpan   bool // the statement's span is not its parent's
		recording bool
	}{
		{"unsampled request", request(remote(0)), false, false},
		{"sampled request", request(remote(trace.FlagsSampled)), true, true},
		{"sampled request, local root", request(context.Background()), true, true},
		{"right under an unsampled caller", remote(0), true, false},
		{"right under a sampled caller", remote(trace.FlagsSampled), true, true},
		{"no request", context.Background(), true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			if _, err := s.Vehicle(tt.ctx, v.ID); err != nil {
				t.Fatal(err)
			}
			if len(seen) != 1 {
				t.Fatalf("%d statements seen, want 1", len(seen))
			}
			parent, got := trace.SpanContextFromContext(tt.ctx), seen[0].sc
			if own := got.SpanID() != parent.SpanID(); own != tt.ownSpan || seen[0].recording != tt.recording || !got.IsValid() {
				t.Errorf("statement span %s (recording %v), parent %s: want its own %v, recording %v",
					got.SpanID(), seen[0].recording, parent.SpanID(), tt.ownSpan, tt.recording)
			}
			if parent.IsValid() && got.TraceID() != parent.TraceID() {
				t.Errorf("statement in trace %s, want the request's %s", got.TraceID(), parent.TraceID())
			}
		})
	}
}

// traced turns tracing on until the test ends, exporting to a new
// in-process receiver, which it returns. Stores opened after it trace
// their statements. The batch processor exports every 50 ms instead of
// its default 5 s (OTEL_BSP_SCHEDULE_DELAY, read by the SDK), so that a
// test waiting for its spans does not wait 5 s for each trace.
func traced(t *testing.T) *otlptest.Receiver {
	t.Helper()
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	rcv, _ := otlptest.Traced(t, "fuel-store-test")
	return rcv
}

func pluginNames[P any](m map[string]P) map[string]any {
	out := map[string]any{}
	for k := range m {
		out[k] = nil
	}
	return out
}

func TestSummary(t *testing.T) {
	for _, tt := range []struct{ query, table, op, want string }{
		{`SELECT id FROM vehicles WHERE id = $1`, "", "SELECT", "vehicles"},
		{"-- migration 3\n/* energies */ ALTER TABLE refuels ADD COLUMN energy text", "", "ALTER", "refuels"},
		{`INSERT INTO "refuels" ("vehicle_id") VALUES ($1)`, "refuels", "INSERT", "refuels"},
		{`update vehicles set name = ?`, "", "UPDATE", "vehicles"},
		{`CREATE TABLE IF NOT EXISTS schema_migrations (version int)`, "", "CREATE", "schema_migrations"},
		{`SELECT 1`, "", "SELECT", ""},
		{`SELECT id, name, brand, model, plate_number, fuel_type, tank_capacity, current_odometer, default_vehicle, created_at, updated_at, energy_x1, energy_x2 FROM vehicles WHERE id = $1 FOR UPDATE`, "", "SELECT", "vehicles"},
		{`SELECT COALESCE(SUM(x), 0) FROM "refuels" WHERE vehicle_id = ?`, "", "SELECT", "refuels"},
		{`SELECT v.id, (SELECT max(r.odometer) FROM refuels r WHERE r.vehicle_id = v.id), v.name FROM vehicles v WHERE v.id = ?`, "", "SELECT", "vehicles"},
		{`SELECT id FROM (SELECT id FROM refuels) r`, "", "SELECT", ""},
	} {
		op, table := summary(tt.query, tt.table)
		if op != tt.op || table != tt.want {
			t.Errorf("summary(%q) = %q %q, want %q %q", tt.query, op, table, tt.op, tt.want)
		}
	}
}

// TestStatementsRemembered: the remembered summaries are summary's own,
// whether a text is seen for the first time or again, and no more than
// maxStatements texts are kept (the rest are scanned each time).
func TestStatementsRemembered(t *testing.T) {
	var k statements
	for _, tt := range []struct{ query, table, want string }{
		{`SELECT id, name FROM vehicles WHERE id = $1`, "", "SELECT vehicles"},
		{`INSERT INTO "refuels" ("vehicle_id") VALUES ($1)`, "refuels", "INSERT refuels"},
		{`SELECT 1`, "", "SELECT"},
		{`UPDATE users SET name = ?`, "", "UPDATE users"},
	} {
		for i := 0; i < 2; i++ {
			st := k.summary(tt.query, tt.table)
			op, table := summary(tt.query, tt.table)
			if st.name != tt.want || st.operation != op || st.table != table {
				t.Errorf("pass %d: %q = %+v, want name %q, operation %q, table %q", i, tt.query, st, tt.want, op, table)
			}
		}
	}
	if got := k.n.Load(); got != 3 {
		t.Errorf("%d texts kept, want 3 (GORM's statement, with its table, is not kept)", got)
	}
	for i := 0; i < maxStatements+10; i++ {
		q := fmt.Sprintf("SELECT id FROM refuels WHERE id IN (%s)", strings.Repeat("?,", i)+"?")
		if st := k.summary(q, ""); st.name != "SELECT refuels" {
			t.Fatalf("%q = %+v", q, st)
		}
	}
	kept := 0
	k.m.Range(func(any, any) bool { kept++; return true })
	if kept != maxStatements || k.n.Load() != maxStatements {
		t.Errorf("%d texts kept (count %d), want at most %d", kept, k.n.Load(), maxStatements)
	}
}
