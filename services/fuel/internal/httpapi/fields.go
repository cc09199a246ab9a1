package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// The request DTOs are made of these member types. Each remembers whether
// its member was present and whether it was null, so that PUT can leave an
// omitted field unchanged, and each refuses a JSON value of the wrong type
// with a *json.UnmarshalTypeError, which encoding/json completes with the
// member's name and ginx renders as "liters: must be a number". Bounds,
// formats and null rules are checked after decoding, where the field's name
// is known (see convert.go).

var (
	stringType  = reflect.TypeFor[string]()
	numberType  = reflect.TypeFor[float64]()
	boolType    = reflect.TypeFor[bool]()
	stringsType = reflect.TypeFor[[]string]()
)

// optString is a JSON string member.
type optString struct {
	Set, Null bool
	V         string
}

func (o *optString) UnmarshalJSON(b []byte) error {
	*o = optString{Set: true}
	if isNull(b) {
		o.Null = true
		return nil
	}
	if b[0] != '"' {
		return typeError(b, stringType)
	}
	return json.Unmarshal(b, &o.V)
}

// optBool is a JSON boolean member; "true" (a string) is not a boolean.
type optBool struct {
	Set, Null bool
	V         bool
}

func (o *optBool) UnmarshalJSON(b []byte) error {
	*o = optBool{Set: true}
	switch {
	case isNull(b):
		o.Null = true
	case bytes.Equal(b, []byte("true")):
		o.V = true
	case bytes.Equal(b, []byte("false")):
	default:
		return typeError(b, boolType)
	}
	return nil
}

// optNumber is a JSON number member, kept as its literal so that it is
// parsed exactly (as a decimal or an integer) once its bounds are known;
// "40" (a string) is not a number.
type optNumber struct {
	Set, Null bool
	Raw       string
}

func (o *optNumber) UnmarshalJSON(b []byte) error {
	*o = optNumber{Set: true}
	if isNull(b) {
		o.Null = true
		return nil
	}
	if b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return typeError(b, numberType)
	}
	o.Raw = string(b)
	return nil
}

// optStrings is a JSON array of strings; an element of another type
// refuses the whole member as not an array of strings.
type optStrings struct {
	Set, Null bool
	V         []string
}

func (o *optStrings) UnmarshalJSON(b []byte) error {
	*o = optStrings{Set: true}
	if isNull(b) {
		o.Null = true
		return nil
	}
	if b[0] != '[' {
		return typeError(b, stringsType)
	}
	if err := json.Unmarshal(b, &o.V); err != nil {
		return typeError(b, stringsType)
	}
	if o.V == nil {
		o.V = []string{}
	}
	return nil
}

func isNull(b []byte) bool { return bytes.Equal(b, []byte("null")) }

func typeError(b []byte, want reflect.Type) error {
	got := "value"
	switch b[0] {
	case '"':
		got = "string"
	case '{':
		got = "object"
	case '[':
		got = "array"
	case 't', 'f':
		got = "bool"
	case 'n':
		got = "null"
	default:
		got = "number"
	}
	return &json.UnmarshalTypeError{Value: got, Type: want}
}
