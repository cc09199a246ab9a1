// Package config reads a service's configuration from the environment into
// a struct whose fields carry their variable name, default and secrecy in
// tags:
//
//	type Config struct {
//		Addr   string        `env:"FUEL_ADDR" default:":8082"`
//		DBURL  string        `env:"DATABASE_URL" secret:"true"`
//		Wait   time.Duration `env:"SHUTDOWN_TIMEOUT" default:"10s"`
//	}
//
// A secret may also be given as a file: NAME_FILE names a file whose
// contents (without a trailing newline) are the value, the convention of
// Docker and Kubernetes secrets. The lookup function is injected, so tests
// pass a map instead of touching the process environment.
//
// It is written here rather than taken from a library because the three
// things both services need together (an injected getenv, NAME_FILE for
// secrets, masking in the start-up log) are each missing from the common
// ones.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Load fills the tagged fields of the struct that dst points to. Fields
// without an env tag are left alone; nested structs are walked.
func Load(getenv func(string) string, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return errors.New("config: Load needs a pointer to a struct")
	}
	var errs []error
	walk(v.Elem(), func(f reflect.Value, sf reflect.StructField) {
		name := sf.Tag.Get("env")
		raw, err := lookup(getenv, name, sf.Tag.Get("secret") == "true")
		if err != nil {
			errs = append(errs, err)
			return
		}
		if raw == "" {
			raw = sf.Tag.Get("default")
		}
		if raw == "" {
			return
		}
		if err := set(f, raw); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	})
	return errors.Join(errs...)
}

func lookup(getenv func(string) string, name string, secret bool) (string, error) {
	if v := getenv(name); v != "" {
		return v, nil
	}
	if !secret {
		return "", nil
	}
	path := getenv(name + "_FILE")
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

func walk(v reflect.Value, fn func(reflect.Value, reflect.StructField)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		f := v.Field(i)
		if sf.Tag.Get("env") == "" {
			if f.Kind() == reflect.Struct {
				walk(f, fn)
			}
			continue
		}
		fn(f, sf)
	}
}

var durationType = reflect.TypeOf(time.Duration(0))

func set(f reflect.Value, raw string) error {
	if f.Type() == durationType {
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 10s or 2m", raw)
		}
		f.SetInt(int64(d))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(raw)
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("%q is not true or false", raw)
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(raw, 10, f.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not an integer", raw)
		}
		f.SetInt(n)
	case reflect.Float64:
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", raw)
		}
		f.SetFloat(n)
	case reflect.Slice:
		if f.Type().Elem().Kind() != reflect.String {
			return fmt.Errorf("unsupported type %s", f.Type())
		}
		var items []string
		for _, s := range strings.Split(raw, ",") {
			if s = strings.TrimSpace(s); s != "" {
				items = append(items, s)
			}
		}
		f.Set(reflect.ValueOf(items))
	default:
		return fmt.Errorf("unsupported type %s", f.Type())
	}
	return nil
}

// Attrs returns the effective configuration as slog key-value pairs, keyed
// by variable name, with secrets masked: a set secret shows as "***", and
// the password of a URL value is masked in place.
func Attrs(cfg any) []any {
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var out []any
	walk(v, func(f reflect.Value, sf reflect.StructField) {
		val := fmt.Sprint(f.Interface())
		if f.Type() == durationType {
			val = time.Duration(f.Int()).String()
		}
		if sf.Tag.Get("secret") == "true" {
			val = Mask(val)
		}
		out = append(out, sf.Tag.Get("env"), val)
	})
	return out
}

// Mask hides a secret for logging: a URL keeps everything but its
// password; anything else non-empty becomes "***".
func Mask(s string) string {
	if s == "" {
		return ""
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "***")
		}
		return u.Redacted()
	}
	return "***"
}
