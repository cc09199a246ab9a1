package backupcli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/backupcli"
)

// call is what a Command's function was asked.
type call struct {
	op, file string
	force    bool
}

func command(calls *[]call, err error) backupcli.Command {
	fn := func(op string) func(context.Context, string, bool) ([]any, error) {
		return func(_ context.Context, file string, force bool) ([]any, error) {
			*calls = append(*calls, call{op, file, force})
			return []any{"items", 3}, err
		}
	}
	return backupcli.Command{Service: "svc", Backup: fn("backup"), Restore: fn("restore")}
}

func TestIs(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false}, {[]string{}, false}, {[]string{"backup"}, true}, {[]string{"restore", "--from", "x"}, true},
		{[]string{"reindex"}, false}, {[]string{"--to", "backup"}, false},
	} {
		if got := backupcli.Is(tt.args); got != tt.want {
			t.Errorf("Is(%q) = %v", tt.args, got)
		}
	}
}

func TestRunCallsTheServiceAndLogsOneLine(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want call
		msg  string
	}{
		{[]string{"backup", "--to", "a.db"}, call{"backup", "a.db", false}, "backup written"},
		{[]string{"backup", "--force", "--to=b.db"}, call{"backup", "b.db", true}, "backup written"},
		{[]string{"restore", "--from", "c.db", "--force"}, call{"restore", "c.db", true}, "backup restored"},
	} {
		var calls []call
		var out bytes.Buffer
		if err := command(&calls, nil).Run(context.Background(), tt.args, &out); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if len(calls) != 1 || calls[0] != tt.want {
			t.Errorf("%q: calls %+v, want %+v", tt.args, calls, tt.want)
		}
		var line map[string]any
		if err := json.Unmarshal(out.Bytes(), &line); err != nil {
			t.Fatalf("%q: log %q: %v", tt.args, out.String(), err)
		}
		if line["msg"] != tt.msg || line["items"] != float64(3) || line["took_ms"] == nil {
			t.Errorf("%q: log line %v", tt.args, line)
		}
	}
}

func TestRunRefusesBadCommandLines(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"serve"}, []string{`unknown command "serve"`, "usage: svc backup --to FILE"}},
		{[]string{"backup"}, []string{"backup: --to FILE is required", "usage:"}},
		{[]string{"restore", "--force"}, []string{"restore: --from FILE is required"}},
		{[]string{"restore", "--to", "x"}, []string{"restore:", "-to", "usage:"}},
		{[]string{"backup", "--to", "x", "y"}, []string{`backup: unexpected argument "y"`}},
	} {
		var calls []call
		var out bytes.Buffer
		err := command(&calls, nil).Run(context.Background(), tt.args, &out)
		if err == nil {
			t.Fatalf("%q: no error", tt.args)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q does not say %q", tt.args, err, w)
			}
		}
		if len(calls) != 0 || out.Len() != 0 {
			t.Errorf("%q: ran %+v and logged %q", tt.args, calls, out.String())
		}
	}
}

func TestRunReturnsTheServicesErrorAndLogsNothing(t *testing.T) {
	var calls []call
	var out bytes.Buffer
	failed := errors.New("disk full")
	err := command(&calls, failed).Run(context.Background(), []string{"backup", "--to", "x"}, &out)
	if !errors.Is(err, failed) || out.Len() != 0 {
		t.Errorf("err %v, log %q", err, out.String())
	}
}
