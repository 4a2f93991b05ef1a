package contract

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestParsePlain holds the one-pass parser to encoding/json's tree (as the validator reads
// it) on every text it takes, and checks that it leaves escapes, non-ASCII text, deep
// nesting and every malformed text to encoding/json.
func TestParsePlain(t *testing.T) {
	for _, tc := range []struct {
		text string
		fast bool
	}{
		{`{"tags":["english","billing"],"priority":5,"title":"Refund request","meta":{"orderId":"o_123"}}`, true},
		{" \n{ \"a\" : [ 1 , -0 , 0.5 , -12.25e+3 , 1E-2 , 10 ] , \"b\" : { } , \"c\" : [ ] }\t", true},
		{`{"t":true,"f":false,"n":null,"s":"","x":"a b/c~}]"}`, true},
		{`{"a":1,"a":2}`, true},
		{`[[[[]]]]`, true},
		{`"top"`, true},
		{`12345678901234567890123456789`, true},
		{`{"a":"\u00e9"}`, false},
		{`{"a":"é"}`, false},
		{`{"a\"":1}`, false},
		{"{\"a\":\"\x7f\"}", false},
		{string(bytes.Repeat([]byte("["), 100)) + string(bytes.Repeat([]byte("]"), 100)), false},
		// Malformed: always left to encoding/json, which refuses them.
		{``, false},
		{`{`, false},
		{`{"a":1,}`, false},
		{`[1,]`, false},
		{`{"a" 1}`, false},
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":.5}`, false},
		{`{"a":-}`, false},
		{`{"a":1e}`, false},
		{`{"a":+1}`, false},
		{`{"a":tru}`, false},
		{`{"a":truex}`, false},
		{`{"a":1} x`, false},
		{`{"a":1}{}`, false},
		{"{\"a\":\"x\ny\"}", false},
		{`{a:1}`, false},
		{`{"a":"open}`, false},
		// Past plainSharedMax each string is copied on its own; at it they share the text.
		{`{"k":"` + strings.Repeat("v", plainSharedMax-15) + `","n":-1.5}`, true},
		{`{"k":"` + strings.Repeat("v", plainSharedMax) + `","n":-1.5,"a":["x",2]}`, true},
	} {
		got, fast := parsePlain([]byte(tc.text))
		if fast != tc.fast {
			t.Errorf("parsePlain(%q) took it = %v, want %v", tc.text, fast, tc.fast)
			continue
		}
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.text)))
		if !fast {
			continue
		}
		if err != nil {
			t.Errorf("parsePlain took %q, which encoding/json refuses: %v", tc.text, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("parsePlain(%q) differs from encoding/json (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestParsePlainSharesOnlyShortText holds the one-pass parser to cutting names and strings
// from one copy of the text only up to plainSharedMax bytes: past it each string is its own,
// so a value kept for long never holds a large body in memory.
func TestParsePlainSharesOnlyShortText(t *testing.T) {
	for _, size := range []int{plainSharedMax, plainSharedMax + 1} {
		head := `{"k":"`
		text := head + strings.Repeat("v", size-len(head)-2) + `"}`
		if len(text) != size {
			t.Fatalf("text of %d bytes, want %d", len(text), size)
		}
		v, ok := parsePlain([]byte(text))
		if !ok {
			t.Fatalf("parsePlain refused %d bytes", size)
		}
		for k, s := range v.(map[string]any) {
			// In one copy the value starts len(`k":"`) bytes after the name.
			shared := uintptr(unsafe.Pointer(unsafe.StringData(s.(string))))-uintptr(unsafe.Pointer(unsafe.StringData(k))) == uintptr(len(`k":"`))
			if want := size <= plainSharedMax; shared != want {
				t.Errorf("%d bytes: the value shares the name's copy = %v, want %v", size, shared, want)
			}
		}
	}
}
